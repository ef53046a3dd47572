import { OpenAPIObject } from '@nestjs/swagger';
import { documentedProblemCodes, problemResponse, ProblemCode } from '@app/core';

type Responses = Record<string, { description?: string; headers?: Record<string, unknown>; content?: unknown }>;
interface Operation {
  responses?: Responses;
  security?: unknown[];
  parameters?: { name?: string; in?: string }[];
  requestBody?: unknown;
  /** A route about the signed-in login (no role needed); else the least role it needs. */
  'x-login-route'?: boolean;
  'x-required-role'?: string;
}

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
 * rate-limit headers on every response, and the problems that come from the shared request path
 * rather than from the operation: 401 and 403 insufficient_scope where a token is needed (and 403
 * insufficient_role and no_account unless the route is the login's own), 400
 * invalid_input for parameters and bodies, 413 and 415 for any request that may carry a body
 * (the JSON parser and the content-type check run before routing), the idempotency codes where
 * Idempotency-Key is taken, 429 (every route is rate limited, failed authentication per IP too),
 * 500 and 503. Codes an operation declared itself are kept; these are added to its `code` enum.
 */
export function addCommonResponses(document: OpenAPIObject): void {
  for (const item of Object.values(document.paths)) {
    for (const [method, operation] of Object.entries(item) as [string, Operation][]) {
      if (!operation?.responses) continue;
      const responses = operation.responses;
      if (!operation.security?.length) delete operation['x-login-route'];
      else if (!operation['x-login-route']) operation['x-required-role'] ??= defaultRole(method);
      for (const [status, codes] of Object.entries(commonProblems(method, operation))) {
        responses[status] = problemResponse(Number(status), [...documentedProblemCodes(responses[status]), ...codes] as ProblemCode[]);
      }
      responses['429'].headers = { ...COMMON_HEADERS, 'Retry-After': integerHeader('Seconds to wait before retrying.') };
      for (const response of Object.values(responses)) response.headers = { ...COMMON_HEADERS, ...(response.headers ?? {}) };
    }
  }
}

const BODY_METHODS = new Set(['post', 'put', 'patch']);

/** The guard's default: a read is open to every member, a write needs `member` (docs/roles.md). */
const defaultRole = (method: string) => (method === 'get' || method === 'head' ? 'read_only' : 'member');

function commonProblems(method: string, operation: Operation): Record<number, ProblemCode[]> {
  const problems: Record<number, ProblemCode[]> = { 429: ['rate_limited'], 500: ['internal_error'], 503: ['unavailable'] };
  const add = (status: number, code: ProblemCode) => (problems[status] = [...(problems[status] ?? []), code]);
  if (operation.security?.length) {
    add(401, 'unauthorized');
    add(403, 'insufficient_scope');
    if (!operation['x-login-route']) {
      add(403, 'insufficient_role');
      add(403, 'no_account');
    }
  }
  if (operation.parameters?.length || operation.requestBody || BODY_METHODS.has(method)) add(400, 'invalid_input');
  if (BODY_METHODS.has(method)) {
    add(413, 'payload_too_large');
    add(415, 'unsupported_media_type');
  }
  if (operation.parameters?.some((p) => p.in === 'header' && p.name === 'Idempotency-Key')) {
    add(409, 'idempotency_key_in_progress');
    add(422, 'idempotency_key_reused');
  }
  return problems;
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
