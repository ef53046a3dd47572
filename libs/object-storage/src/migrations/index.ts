import { ObjectStorageUsers1764000002310 } from './1764000002310-object-storage-users';
import { GatewayMadeSecrets1764000002730 } from './1764000002730-gateway-made-secrets';
import { RemakeUnmadeKeys1764000002920 } from './1764000002920-remake-unmade-keys';

/** object_storage_users (object_storage_credentials is made by services' first migration). */
export const objectStorageMigrations = [ObjectStorageUsers1764000002310, GatewayMadeSecrets1764000002730, RemakeUnmadeKeys1764000002920];
