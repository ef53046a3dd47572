export * from './notifications.module';
export * from './notifications.service';
export * from './notification-templates';
export * from './notification.types';
export * from './stream/notification-hub';
export * from './migrations';
export * from './notifications.demo';
