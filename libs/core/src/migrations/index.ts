import { CreateIdempotencyKeys1764000000900 } from './1764000000900-create-idempotency-keys';
import { SealIdempotencyReplays1764000002800 } from './1764000002800-seal-idempotency-replays';

export const coreMigrations = [CreateIdempotencyKeys1764000000900, SealIdempotencyReplays1764000002800];
