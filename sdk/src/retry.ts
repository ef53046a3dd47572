import type { Middleware } from 'openapi-fetch';
import { sleep } from './sleep';

export interface RetryOptions {
  /** Further attempts after the first (default 2; 0 switches retries off). */
  retries?: number;
  /** First back-off delay when the answer names none (default 250 ms, doubled per attempt). */
  baseDelayMs?: number;
  /** A `Retry-After` longer than this is not waited out: the answer is returned (default 60 s). */
  maxDelayMs?: number;
  /**
   * Called before each retry's wait, e.g. to say "rate limited, retrying in 12 s". Returning
   * `false` gives up instead: the answer is returned (or the network error thrown) as it came.
   */
  onRetry?: (retry: RetryNotice) => void | boolean | Promise<void | boolean>;
}

/** What `onRetry` is told about a retry about to happen. */
export interface RetryNotice {
  /** The request that will be sent again. */
  request: Request;
  /** 1 for the first retry, 2 for the second... */
  attempt: number;
  /** How long the client waits before sending it again (from `Retry-After` when the answer has one). */
  delayMs: number;
  /** The answer being retried (a 429, 502, 503 or 504); undefined after a network error. */
  response?: Response;
  /** The network error, when there was no answer. */
  error?: unknown;
}

export type FetchLike = (input: Request, init?: RequestInit) => Promise<Response>;

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);
/** Answers that say "try again": the request did not get through, or was refused before it ran. */
const RETRYABLE_STATUS = new Set([429, 502, 503, 504]);

/**
 * Sets an `Idempotency-Key` on every POST that has none, so that a retry (ours or the caller's)
 * cannot run it twice. The API's own authentication routes (`/api/auth/...`) do not honour the
 * header, so they get none and are not retried except after a 429.
 */
export function idempotencyKeys(): Middleware {
  return {
    onRequest({ request }) {
      if (request.method !== 'POST' || request.headers.has('Idempotency-Key')) return undefined;
      if (new URL(request.url).pathname.includes('/api/auth/')) return undefined;
      request.headers.set('Idempotency-Key', randomKey());
      return request;
    },
  };
}

/**
 * A fetch that retries what is safe to retry: reads, PUT and DELETE, and POSTs carrying an
 * `Idempotency-Key`, after a network error or a 429/502/503/504; any request after a 429 (the
 * rate limiter answers before anything runs). `Retry-After` is honoured; otherwise the delay
 * doubles from `baseDelayMs`. `onRetry` hears of each retry first, and may call it off.
 */
export function retryingFetch(fetchImpl: FetchLike, options: RetryOptions = {}): FetchLike {
  const { retries = 2, baseDelayMs = 250, maxDelayMs = 60_000, onRetry } = options;
  return async (request, init) => {
    const replayable = SAFE_METHODS.has(request.method) || request.headers.has('Idempotency-Key');
    for (let attempt = 0; ; attempt++) {
      const last = attempt >= retries;
      const sent = last ? request : request.clone();
      let response: Response;
      try {
        response = await fetchImpl(sent, init);
      } catch (error) {
        if (last || !replayable || request.signal?.aborted) throw error;
        const delayMs = baseDelayMs * 2 ** attempt;
        if ((await onRetry?.({ request, attempt: attempt + 1, delayMs, error })) === false) throw error;
        await sleep(delayMs, request.signal);
        continue;
      }
      if (last || !RETRYABLE_STATUS.has(response.status) || (!replayable && response.status !== 429)) return response;
      const delayMs = retryAfterMs(response) ?? baseDelayMs * 2 ** attempt;
      if (delayMs > maxDelayMs) return response;
      if ((await onRetry?.({ request, attempt: attempt + 1, delayMs, response })) === false) return response;
      await response.body?.cancel().catch(() => undefined);
      await sleep(delayMs, request.signal);
    }
  };
}

/** `Retry-After` in milliseconds: delay-seconds or an HTTP date. */
export function retryAfterMs(response: Response): number | undefined {
  const value = response.headers.get('retry-after');
  if (value === null || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

function randomKey(): string {
  const crypto = (globalThis as { crypto?: { randomUUID?: () => string } }).crypto;
  if (crypto?.randomUUID) return crypto.randomUUID();
  // Node 18 has no global crypto; the key only has to be unique to this client's retries.
  return `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}-${Math.random().toString(36).slice(2)}`;
}
