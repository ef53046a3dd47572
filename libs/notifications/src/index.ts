export * from './notifications.module';
export * from './migrations';
