export * from './ssh-keys.events';
export * from './ssh-keys.module';
export * from './public-key-parser';
export * from './migrations';
export * from './ssh-keys.demo';
export * from './account-ssh-keys';
