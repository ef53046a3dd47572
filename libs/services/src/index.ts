export * from './services.events';
export * from './services.module';
export * from './migrations';
export * from './service-ownership';
export * from './service.types';
export * from './services.repository';
export * from './services.service';
export * from './dto/service.response';
