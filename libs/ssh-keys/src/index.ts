export * from './ssh-keys.module';
export * from './migrations';
