export * from './products.module';
export * from './migrations';
export * from './catalogue.types';
export * from './product-catalog';
export * from './dto/product.response';
