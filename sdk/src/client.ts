import createClient, { type Client, type Middleware } from 'openapi-fetch';
import type { paths } from './schema';

/** A typed client of the whole API: `client.GET('/api/services', { params: { query: { page: 2 } } })`. */
export type HostingClient = Client<paths>;

export interface HostingClientOptions {
  /** Where the API is, without `/api`: e.g. `https://api.hosting.example`. */
  baseUrl: string;
  /**
   * An API key (`hpk_...`) or an access token, sent as `Authorization: Bearer <token>`. A function
   * is asked before every request (for tokens that are refreshed or rotated).
   */
  token: string | (() => string | Promise<string>);
  /** Headers for every request (e.g. a `User-Agent` naming your tool). */
  headers?: Record<string, string>;
  /** A fetch implementation; the global one by default (Node 18+, browsers). */
  fetch?: (input: Request) => Promise<Response>;
}

/** The bearer-auth middleware `createHostingClient` installs; exported for clients you build yourself. */
export function bearerAuth(token: HostingClientOptions['token']): Middleware {
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
  if (!options.token) throw new TypeError('createHostingClient: token is required (an API key or an access token)');
  const client = createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    headers: { Accept: 'application/json, application/problem+json', ...options.headers },
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  client.use(bearerAuth(options.token));
  return client;
}
