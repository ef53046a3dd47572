export * from './events.module';
export * from './activity-log.service';
export * from './activity-retention.job';
export * from './secret-details';
export * from './migrations';
