export * from './services.module';
export * from './migrations';
export * from './service-ownership';
