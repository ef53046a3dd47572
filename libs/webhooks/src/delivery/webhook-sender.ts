import { lookup as dnsLookup } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { BeforeApplicationShutdown, Injectable } from '@nestjs/common';
import { AppConfig } from '@app/core';
import { isPublicAddress } from './address-policy';
import { EndpointAgents } from './endpoint-agents';
import { captureBody, captureHeaders, CapturedResponse } from './response-capture';

export const RESPONSE_BODY_CAP = 64 * 1024;
const EXCERPT_LENGTH = 200;
export const USER_AGENT = 'HostingAccount-Webhooks/1.0 (+https://www.standardwebhooks.com)';

/** All a customer learns of a refused address: what a name resolves to would map the provider's internal DNS. */
export const ADDRESS_REFUSED = 'the address is not allowed';

/** How an attempt ended: an answer (2xx or not), or none (no connection, no answer in time, an address refused). */
export type AttemptResult = 'succeeded' | 'http_error' | 'network_error' | 'timeout' | 'refused';

export interface SendResult {
  ok: boolean;
  result: AttemptResult;
  responseCode: number | null;
  durationMs: number;
  error: string | null;
  /** The answer's headers and the start of its body; null when none came. */
  response: CapturedResponse | null;
}

const INTERRUPTED = 'interrupted by shutdown; will be retried';

class Refused extends Error {}
/** A reused connection the other side had closed. */
class StaleConnection extends Error {
  constructor(readonly original: Error) {
    super(original.message);
  }
}
const STALE_CODES = new Set(['ECONNRESET', 'EPIPE']);
class TimedOut extends Error {}

/**
 * One POST to an endpoint. The host is resolved once, every address checked, and the socket
 * connects to the checked address (a pinned `lookup`), so a DNS answer that changes between check
 * and connect (rebinding) cannot reach an internal address. The connection is kept for the next
 * attempt to the same endpoint and address (EndpointAgents). Redirects are not followed; the
 * response body is read up to 64 KiB; the whole exchange has WEBHOOKS_TIMEOUT_SECONDS (10).
 */
@Injectable()
export class WebhookSender implements BeforeApplicationShutdown {
  private readonly inFlight = new Set<AbortController>();
  private readonly agents = new EndpointAgents();
  private stopped = false;

  constructor(private readonly config: AppConfig) {}

  /**
   * Attempts under way, and any begun after this, end at once (recorded as failed and retried), so
   * shutdown is not held by a slow endpoint.
   */
  beforeApplicationShutdown(): void {
    this.stopped = true;
    for (const controller of this.inFlight) controller.abort(new Error(INTERRUPTED));
    this.agents.destroyAll();
  }

  async send(rawUrl: string, headers: Record<string, string>, body: string): Promise<SendResult> {
    const started = Date.now();
    const result = (kind: AttemptResult, error: string | null, answer?: Answer): SendResult => ({
      ok: kind === 'succeeded',
      result: kind,
      responseCode: answer?.status ?? null,
      durationMs: Date.now() - started,
      error: error && error.slice(0, 500),
      response: answer?.response ?? null,
    });
    const controller = new AbortController();
    const { timeoutSeconds } = this.config.webhooks;
    const timer = setTimeout(() => controller.abort(new TimedOut(`no complete answer within ${timeoutSeconds} s`)), timeoutSeconds * 1000);
    this.inFlight.add(controller);
    if (this.stopped) controller.abort(new Error(INTERRUPTED));
    try {
      const url = new URL(rawUrl);
      const { allowHttp, allowPrivate } = this.config.webhooks;
      if (url.protocol !== 'https:' && !(url.protocol === 'http:' && allowHttp)) throw new Refused(`scheme ${url.protocol} is not allowed`);
      const target = await abortable(this.resolve(url.hostname.replace(/^\[|\]$/g, ''), allowPrivate), controller.signal);
      const answer = await this.post({ url, target, headers, body, signal: controller.signal });
      const { status, excerpt } = answer;
      if (status >= 200 && status < 300) return result('succeeded', null, answer);
      if (status >= 300 && status < 400) return result('http_error', `HTTP ${status}: redirects are not followed`, answer);
      return result('http_error', `HTTP ${status}${excerpt ? `: ${excerpt}` : ''}`, answer);
    } catch (err) {
      if (err instanceof Refused) return result('refused', `refused: ${err.message}`);
      const reason = controller.signal.aborted ? (controller.signal.reason as Error) : (err as Error);
      return result(reason instanceof TimedOut ? 'timeout' : 'network_error', describe(reason));
    } finally {
      clearTimeout(timer);
      this.inFlight.delete(controller);
    }
  }

  private async resolve(host: string, allowPrivate: boolean): Promise<{ address: string; family: number }> {
    const family = isIP(host);
    const addresses = family
      ? [{ address: host, family }]
      : await this.lookup(host).catch((err: NodeJS.ErrnoException) => {
          throw new Error(`cannot resolve ${host}: ${err.code ?? err.message}`);
        });
    if (!addresses.length) throw new Error(`cannot resolve ${host}`);
    if (!allowPrivate && !addresses.every((a) => isPublicAddress(a.address))) throw new Refused(ADDRESS_REFUSED);
    return addresses[0];
  }

  /** The one DNS lookup of an attempt (a seam for the rebinding test). */
  protected lookup(host: string): Promise<{ address: string; family: number }[]> {
    return dnsLookup(host, { all: true, verbatim: true });
  }

  /**
   * A kept connection the endpoint closed just as it was reused fails before any answer: that
   * attempt goes again at once on a new connection (webhooks are at-least-once, with one id).
   */
  private async post(request: Outgoing): Promise<Answer> {
    try {
      return await this.postOnce(request);
    } catch (err) {
      if (!(err instanceof StaleConnection) || request.signal.aborted) throw err instanceof StaleConnection ? err.original : err;
      return this.postOnce(request);
    }
  }

  private postOnce({ url, target, headers, body, signal }: Outgoing): Promise<Answer> {
    const pinned: LookupFunction = (_host, options, callback) => {
      if ((options as { all?: boolean }).all) (callback as (e: null, a: { address: string; family: number }[]) => void)(null, [target]);
      else callback(null, target.address, target.family);
    };
    const client = url.protocol === 'https:' ? https : http;
    return new Promise((resolve, reject) => {
      const req = client.request(
        url,
        {
          method: 'POST',
          agent: this.agents.for(url, target.address),
          lookup: pinned,
          signal,
          headers: { ...headers, 'content-type': 'application/json', 'user-agent': USER_AGENT, 'content-length': Buffer.byteLength(body) },
        },
        (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          const done = () => {
            const bytes = Buffer.concat(chunks);
            // One line, without control characters (PostgreSQL's text cannot hold NUL).
            const text = bytes
              .toString('utf8')
              .replace(/[\s\u0000-\u001f\u007f]+/g, ' ')
              .trim();
            const { headers: kept, truncated: headersTruncated } = captureHeaders(res.rawHeaders);
            resolve({
              status: res.statusCode ?? 0,
              excerpt: text.slice(0, EXCERPT_LENGTH),
              response: { headers: kept, headersTruncated, ...captureBody(bytes, size) },
            });
          };
          res.on('data', (chunk: Buffer) => {
            size += chunk.length;
            if (size <= RESPONSE_BODY_CAP) chunks.push(chunk);
            else {
              res.destroy();
              done();
            }
          });
          res.on('end', done);
          res.on('error', (err) => (size > RESPONSE_BODY_CAP ? undefined : reject(err)));
        },
      );
      req.on('error', (err: NodeJS.ErrnoException) =>
        reject(req.reusedSocket && STALE_CODES.has(err.code ?? '') ? new StaleConnection(err) : err),
      );
      req.end(body);
    });
  }
}

/** One attempt's request, to the address resolved (and checked) once. */
interface Outgoing {
  url: URL;
  target: { address: string; family: number };
  headers: Record<string, string>;
  body: string;
  signal: AbortSignal;
}

interface Answer {
  status: number;
  /** For the delivery's lastError. */
  excerpt: string;
  response: CapturedResponse;
}

/** An error as the customer reads it; a socket's leaves out the address it names, as ADDRESS_REFUSED does. */
function describe(err: Error): string {
  const { syscall, code } = err as NodeJS.ErrnoException;
  return syscall === 'connect' && code ? `connect ${code}` : err.message || String(err);
}

/** The promise, or a rejection as soon as the signal aborts (a DNS lookup cannot be cancelled, only left). */
function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason as Error);
    signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true });
    promise.then(resolve, reject);
  });
}
