import { CreateIdempotencyKeys1764000000900 } from './1764000000900-create-idempotency-keys';

export const coreMigrations = [CreateIdempotencyKeys1764000000900];
