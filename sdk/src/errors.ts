import type { components } from './schema';

/** Every `code` the API answers in a problem; each operation's error responses narrow it to their own. */
export type ProblemCode = components['schemas']['ProblemCode'];

/**
 * The API's error body (RFC 9457 problem details): `{type, title, status, detail, code, requestId, errors?}`.
 * `http_<status>` is the code of an answer that was not the API's (a proxy's 502 page, say).
 */
export type Problem = Omit<components['schemas']['ProblemResponse'], 'code'> & { code: ProblemCode | `http_${number}` };

/**
 * A non-2xx answer. `problem` is the API's problem body; when something in between (a proxy, a
 * load balancer) answered with something else, it is filled in from the status and the text.
 */
export class HostingApiError extends Error {
  override readonly name = 'HostingApiError';
  readonly status: number;
  /** Stable machine-readable code, e.g. `not_found`, `invalid_state`, `rate_limited` (each has a page on the API at its problem's `type`, e.g. `/problems/not-found`). */
  readonly code: Problem['code'];
  /** Quote it to support; also in the `X-Request-Id` header. */
  readonly requestId: string | undefined;
  readonly problem: Problem;
  readonly response: Response;

  constructor(response: Response, body: unknown) {
    const problem = toProblem(response, body);
    super(`${problem.status} ${problem.code}: ${problem.detail}${problem.requestId ? ` (request ${problem.requestId})` : ''}`);
    this.status = problem.status;
    this.code = problem.code;
    this.requestId = problem.requestId || undefined;
    this.problem = problem;
    this.response = response;
  }

  /** Field errors of a 400 `invalid_input`, empty otherwise. */
  get errors(): NonNullable<Problem['errors']> {
    return this.problem.errors ?? [];
  }

  /** Seconds from `Retry-After` (429, 503), if the answer had one. */
  get retryAfterSeconds(): number | undefined {
    const value = Number(this.response.headers.get('retry-after'));
    return Number.isFinite(value) && value >= 0 && this.response.headers.has('retry-after') ? value : undefined;
  }
}

function toProblem(response: Response, body: unknown): Problem {
  const requestId = response.headers.get('x-request-id') ?? '';
  if (body && typeof body === 'object' && typeof (body as Problem).code === 'string') {
    const problem = body as Problem;
    return { ...problem, status: problem.status ?? response.status, requestId: problem.requestId ?? requestId };
  }
  const text = typeof body === 'string' ? body.slice(0, 500) : '';
  return {
    type: 'about:blank',
    title: response.statusText || `HTTP ${response.status}`,
    status: response.status,
    detail: text || response.statusText || `The server answered ${response.status}.`,
    code: `http_${response.status}`,
    requestId,
  };
}

/** What every `client.GET/POST/...` call resolves to (openapi-fetch's `FetchResponse`, loosely). */
export interface CallResult<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/**
 * The data of a successful call, or a thrown `HostingApiError` carrying the problem body.
 *
 *     const services = await unwrap(client.GET('/api/services'));
 */
export async function unwrap<T>(call: Promise<CallResult<T>> | CallResult<T>): Promise<T> {
  const { data, error, response } = await call;
  if (!response.ok) throw new HostingApiError(response, error);
  return data as T;
}
