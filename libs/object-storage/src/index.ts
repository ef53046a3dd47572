export * from './object-storage.module';
export * from './object-storage.events';
export * from './object-storage-provider';
export * from './migrations';
