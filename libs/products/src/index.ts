export * from './products.module';
export * from './migrations';
export * from './catalogue';
export * from './product-catalog';
export * from './dto/product.response';
