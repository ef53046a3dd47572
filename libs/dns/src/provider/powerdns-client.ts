import { DnsRejected, DnsUnavailable } from './dns-provider';

export interface PowerDnsOptions {
  /** The webserver's base URL, e.g. `http://127.0.0.1:8081` (no `/api/v1`). */
  apiUrl: string;
  apiKey: string;
  /** `localhost` on a stock server. */
  serverId: string;
  timeoutMs: number;
}

export interface PowerDnsCall {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** Below `/api/v1/servers/<serverId>`: '' for the server, `/zones`, `/zones/<id>`. */
  path: string;
  body?: unknown;
  /** What the call does, for error messages: `creating zone example.com.`. */
  doing: string;
}

/** A 4xx other than 400/401/403/422 (404, 409): the caller decides what it means. */
export class PowerDnsStatus extends Error {
  constructor(readonly status: number) {
    super(`PowerDNS answered ${status}`);
  }
}

/**
 * The PowerDNS Authoritative HTTP API: a timeout on each request, the API key in `X-API-Key`
 * (never in a message). No answer, a timeout and 5xx throw DnsUnavailable; 400 and 422 throw
 * DnsRejected with PowerDNS's `error` text; 401/403 DnsUnavailable (an operator error); any other
 * 4xx PowerDnsStatus. Answers the parsed JSON body, or null for an empty one.
 */
export class PowerDnsClient {
  constructor(private readonly options: PowerDnsOptions) {}

  async call<T>({ method, path, body, doing }: PowerDnsCall): Promise<T | null> {
    const { apiUrl, apiKey, serverId, timeoutMs } = this.options;
    const url = `${apiUrl.replace(/\/+$/, '')}/api/v1/servers/${encodeURIComponent(serverId)}${path}`;
    const headers: Record<string, string> = { 'X-API-Key': apiKey, Accept: 'application/json' };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    let status: number;
    let text: string;
    try {
      const signal = AbortSignal.timeout(timeoutMs);
      const res = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal });
      status = res.status;
      text = await res.text();
    } catch (err) {
      const name = (err as Error).name;
      const cause = name === 'TimeoutError' || name === 'AbortError' ? `no answer within ${timeoutMs} ms` : causeOf(err);
      throw new DnsUnavailable(`PowerDNS at ${apiUrl} did not answer (${cause}) while ${doing}`);
    }
    if (status >= 500) throw new DnsUnavailable(`PowerDNS at ${apiUrl} failed ${doing}: ${status} ${errorText(text)}`.trim());
    if (status === 401 || status === 403) throw new DnsUnavailable('PowerDNS refused the API key');
    if (status === 400 || status === 422) throw new DnsRejected(errorText(text) || `PowerDNS refused ${doing} (${status})`);
    if (status >= 400) throw new PowerDnsStatus(status);
    return text ? (JSON.parse(text) as T) : null;
  }
}

/**
 * A zone's id in the API's URLs, as PowerDNS makes it (apiZoneNameToId): the absolute name with
 * every character other than a letter, digit, `.` or `-` as `=XX` (`0/26.2.0.192.in-addr.arpa.` is
 * `0=2F26.2.0.192.in-addr.arpa.`), then URL-encoded.
 */
export function zoneId(zone: string): string {
  const name = zone.endsWith('.') ? zone : `${zone}.`;
  const id =
    name === '.' ? '=2E' : name.replace(/[^A-Za-z0-9.-]/g, (c) => `=${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
  return encodeURIComponent(id);
}

/** PowerDNS answers errors as `{"error": "..."}`, or plain text (`Not Found`, `Conflict`). */
function errorText(body: string): string {
  try {
    return String((JSON.parse(body) as { error?: unknown }).error ?? '');
  } catch {
    return body.trim().slice(0, 200);
  }
}

function causeOf(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (err as Error).message;
}
