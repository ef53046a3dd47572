import { SetMetadata } from '@nestjs/common';

export const NO_IDEMPOTENCY = 'idempotency:off';

/**
 * Opts a POST out of Idempotency-Key handling: API key creation (its secret is never stored, so a
 * replay could not show it) and the public auth routes.
 */
export const NoIdempotency = () => SetMetadata(NO_IDEMPOTENCY, true);
