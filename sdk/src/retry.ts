import type { Middleware } from 'openapi-fetch';
import { sleep } from './sleep';

export interface RetryOptions {
  /** Further attempts after the first (default 2; 0 switches retries off). */
  retries?: number;
  /** First back-off delay when the answer names none (default 250 ms, doubled per attempt). */
  baseDelayMs?: number;
  /** A `Retry-After` longer than this is not waited out: the answer is returned (default 60 s). */
  maxDelayMs?: number;
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
 * doubles from `baseDelayMs`.
 */
export function retryingFetch(fetchImpl: FetchLike, options: RetryOptions = {}): FetchLike {
  const { retries = 2, baseDelayMs = 250, maxDelayMs = 60_000 } = options;
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
        await sleep(baseDelayMs * 2 ** attempt, request.signal);
        continue;
      }
      if (last || !RETRYABLE_STATUS.has(response.status) || (!replayable && response.status !== 429)) return response;
      const delay = retryAfterMs(response) ?? baseDelayMs * 2 ** attempt;
      if (delay > maxDelayMs) return response;
      await response.body?.cancel().catch(() => undefined);
      await sleep(delay, request.signal);
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
