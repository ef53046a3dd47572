export * from './webhooks.events';
export * from './webhooks.module';
export * from './migrations';
export * from './delivery/webhook-signature';
export * from './delivery/address-policy';
export * from './delivery/deliveries-retention.job';
