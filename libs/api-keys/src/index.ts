export * from './api-keys.module';
export * from './api-keys.service';
export * from './api-key-verifier';
export * from './api-key-format';
export * from './dto/api-key.response';
export * from './dto/create-api-key.request';
export * from './migrations';
export * from './api-key-expiry.scanner';
