export interface Exchange {
  /** ms since the soak began */
  at: number;
  method: string;
  /** The path with ids replaced by `:id`, to group the answers. */
  route: string;
  /** 0 when no answer came (connection refused or cut, or the client's timeout). */
  status: number;
  ms: number;
  requestId?: string;
  error?: string;
}

export interface Answer {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

/** Every request the customers make, through nginx, each answer recorded for the audit. */
export class HttpLog {
  readonly exchanges: Exchange[] = [];

  constructor(
    private readonly baseUrl: () => string,
    readonly began: number,
  ) {}

  async send(
    method: string,
    path: string,
    options: { bearer?: string; body?: unknown; headers?: Record<string, string>; raw?: Buffer; timeoutMs?: number } = {},
  ): Promise<Answer> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.bearer) headers.authorization = `Bearer ${options.bearer}`;
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    const started = Date.now();
    // A full URL goes elsewhere (a presigned upload to the object store); its route is named by its host.
    const url = /^https?:\/\//.test(path) ? new URL(path) : null;
    const route = url ? `${url.host}${url.pathname.replace(/\/[^/]+$/, '/:key')}` : path.split('?')[0].replace(UUID, ':id');
    const exchange: Exchange = { at: started - this.began, method, route, status: 0, ms: 0 };
    this.exchanges.push(exchange);
    try {
      const res = await fetch(url ?? `${this.baseUrl()}${path}`, {
        method,
        headers,
        body: options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body)),
        signal: AbortSignal.timeout(options.timeoutMs ?? 60_000),
      });
      const text = await res.text();
      exchange.status = res.status;
      exchange.requestId = res.headers.get('x-request-id') ?? undefined;
      let body: any = undefined;
      try {
        body = text ? JSON.parse(text) : undefined;
      } catch {
        body = undefined;
      }
      return { status: res.status, headers: res.headers, body, text };
    } catch (err) {
      exchange.error = String((err as Error).cause ?? (err as Error).message).slice(0, 300);
      return { status: 0, headers: new Headers(), body: undefined, text: exchange.error };
    } finally {
      exchange.ms = Date.now() - started;
    }
  }
}
