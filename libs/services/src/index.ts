export * from './services.events';
export * from './services.module';
export * from './migrations';
export * from './service-ownership';
export * from './services-gauges';
export * from './service.types';
export * from './instance/compute/compute-provider';
