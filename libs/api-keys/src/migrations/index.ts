import { CreateApiKeys1764000000200 } from './1764000000200-create-api-keys';

export const apiKeysMigrations = [CreateApiKeys1764000000200];
