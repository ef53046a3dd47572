import { CreateProducts1764000000300 } from './1764000000300-create-products';
import { ObjectStorageLimits1764000002300 } from './1764000002300-object-storage-limits';

export const productsMigrations = [CreateProducts1764000000300, ObjectStorageLimits1764000002300];
