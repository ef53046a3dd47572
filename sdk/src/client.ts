import createClient, { type Client, type Middleware } from 'openapi-fetch';
import { FetchLike, idempotencyKeys, RetryOptions, retryingFetch } from './retry';
import type { paths } from './schema';

/** A typed client of the whole API: `client.GET('/api/services', { params: { query: { page: 2 } } })`. */
export type HostingClient = Client<paths>;

export interface HostingClientOptions {
  /** Where the API is, without `/api`: e.g. `https://api.hosting.example`. */
  baseUrl: string;
  /**
   * An API key (`hpk_...`) or an access token, sent as `Authorization: Bearer <token>`. A function
   * is asked before every request (for tokens that are refreshed or rotated). Leave it out only
   * for the public routes (register, login, refresh).
   */
  token?: string | (() => string | Promise<string>);
  /** Headers for every request (e.g. a `User-Agent` naming your tool). */
  headers?: Record<string, string>;
  /** A fetch implementation; the global one by default (Node 18+, browsers). */
  fetch?: FetchLike;
  /**
   * Retries of what is safe to retry (reads, PUT, DELETE, POSTs with an `Idempotency-Key`) after a
   * network error or a 429/502/503/504, honouring `Retry-After`. `false` switches them off.
   */
  retry?: RetryOptions | false;
  /** Set an `Idempotency-Key` on every POST that has none (default true). */
  idempotencyKeys?: boolean;
}

/** The bearer-auth middleware `createHostingClient` installs; exported for clients you build yourself. */
export function bearerAuth(token: NonNullable<HostingClientOptions['token']>): Middleware {
  return {
    async onRequest({ request }) {
      const value = typeof token === 'function' ? await token() : token;
      request.headers.set('Authorization', `Bearer ${value}`);
      return request;
    },
  };
}

/**
 * The API client. Calls resolve to `{ data, error, response }` as openapi-fetch's do; wrap them in
 * `unwrap()` to get the data or a thrown `HostingApiError`.
 *
 *     const client = createHostingClient({ baseUrl: 'https://api.hosting.example', token: process.env.HOSTING_API_KEY! });
 */
export function createHostingClient(options: HostingClientOptions): HostingClient {
  // A token that is present but empty is a mistake (an unset environment variable), not "anonymous".
  if ('token' in options && !options.token) throw new TypeError('createHostingClient: token is empty (give an API key or an access token)');
  const client = createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    headers: { Accept: 'application/json, application/problem+json', ...options.headers },
    fetch: retryingFetch(
      options.fetch ?? ((request, init) => globalThis.fetch(request, init)),
      options.retry === false ? { retries: 0 } : options.retry,
    ),
  });
  if (options.token) client.use(bearerAuth(options.token));
  if (options.idempotencyKeys !== false) client.use(idempotencyKeys());
  return client;
}
