import { applyDecorators, UseInterceptors } from '@nestjs/common';
import { ApiHeader } from '@nestjs/swagger';
import { IdempotencyInterceptor } from './idempotency.interceptor';

/**
 * A POST that honours Idempotency-Key. Per route rather than global, so reads never pay for an
 * interceptor chain; API key creation (its secret is never stored, so a replay could not show it)
 * and the public auth routes go without. What the key itself can cause (400 `invalid_input` for a
 * malformed key, 409 `idempotency_key_in_progress`, 422 `idempotency_key_reused`) is added to the
 * document for every operation with the header (apps/api/src/http/openapi-responses.ts), merged
 * with the operation's own 409 codes.
 */
export const Idempotent = () =>
  applyDecorators(
    UseInterceptors(IdempotencyInterceptor),
    ApiHeader({
      name: 'Idempotency-Key',
      required: false,
      description:
        'Makes a retry safe: the first response is kept for 24 hours and replayed for the same key and body from the same ' +
        'API key or session (with `Idempotent-Replayed: true`); the same key with another request or from another ' +
        'credential is 422, and while the first is still running 409.',
      schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]+$' },
    }),
  );
