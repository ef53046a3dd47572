export * from './metrics.module';
