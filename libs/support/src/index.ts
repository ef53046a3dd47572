export * from './support.module';
export * from './migrations';
