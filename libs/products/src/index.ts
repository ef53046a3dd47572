export * from './products.module';
export * from './migrations';
