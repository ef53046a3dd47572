import { CreateProducts1764000000300 } from './1764000000300-create-products';

export const productsMigrations = [CreateProducts1764000000300];
