import { OpenAPIObject } from '@nestjs/swagger';

type Responses = Record<string, { description?: string; headers?: Record<string, unknown>; content?: unknown }>;

const PROBLEM = { 'application/problem+json': { schema: { $ref: '#/components/schemas/ProblemResponse' } } };
const integerHeader = (description: string) => ({
  description,
  schema: { type: 'integer', format: 'int32', minimum: 0, maximum: 2147483647 },
});

export const COMMON_HEADERS = {
  'X-Request-Id': {
    description: 'Id of this request; quote it to support.',
    schema: { type: 'string', maxLength: 128, pattern: '^[A-Za-z0-9._:-]+$' },
  },
  'RateLimit-Limit': integerHeader('Requests allowed in the current window of the most restrictive bucket.'),
  'RateLimit-Remaining': integerHeader('Requests left in that window.'),
  'RateLimit-Reset': integerHeader('Seconds until that window resets.'),
};

/**
 * What every operation can answer, written once instead of on each handler: the request-id and
 * rate-limit headers on every response, 429 with Retry-After, 500, and 401 where a token is needed.
 */
export function addCommonResponses(document: OpenAPIObject): void {
  for (const item of Object.values(document.paths)) {
    for (const operation of Object.values(item) as { responses?: Responses; security?: unknown[] }[]) {
      if (!operation?.responses) continue;
      const responses = operation.responses;
      if (operation.security?.length) {
        responses['401'] ??= { description: 'Missing, invalid, expired or revoked bearer token (unauthorized).', content: PROBLEM };
      }
      responses['429'] ??= { description: 'Rate limit exceeded (rate_limited).', content: PROBLEM };
      responses['429'].headers = { ...COMMON_HEADERS, 'Retry-After': integerHeader('Seconds to wait before retrying.') };
      responses['500'] ??= { description: 'Unexpected error (internal_error); no internals are shown.', content: PROBLEM };
      responses['503'] ??= {
        description: 'Temporarily unavailable (unavailable), for example while the database is unreachable.',
        content: PROBLEM,
      };
      for (const response of Object.values(responses)) response.headers = { ...COMMON_HEADERS, ...(response.headers ?? {}) };
    }
  }
}

/** Integers in this API are int32 except page numbers, which may reach 2^53. */
export function addIntegerFormats(node: unknown, key = ''): void {
  if (!node || typeof node !== 'object') return;
  const schema = node as Record<string, unknown>;
  if (schema.type === 'integer' && !schema.format) schema.format = key === 'page' ? 'int64' : 'int32';
  for (const [childKey, child] of Object.entries(schema)) {
    addIntegerFormats(child, schema.name === 'page' && childKey === 'schema' ? 'page' : childKey);
  }
}
