import { HostingApiError } from './errors';
import { sleep } from './sleep';

export interface WaitOptions<T = unknown> {
  /** Called with each answer while it waits (an action's `progress` and `step`, say), the last one included. */
  onPoll?: (last: T) => void;
  /** Give up after this long (default 120 s). */
  timeoutMs?: number;
  /** Time between polls (default 1 s). */
  intervalMs?: number;
  /** Stops waiting when aborted. */
  signal?: AbortSignal;
}

/**
 * Reads `probe` until `done` holds for what it returns, and returns that. A 429 is waited out
 * (`Retry-After`) rather than thrown; any other error is thrown. When the next poll would come
 * after the deadline, `expired(last)` is thrown.
 */
export async function pollUntil<T>(
  probe: (signal?: AbortSignal) => Promise<T>,
  done: (value: T) => boolean,
  expired: (last: T, timeoutMs: number) => Error,
  options: WaitOptions<T> = {},
): Promise<T> {
  const { timeoutMs = 120_000, intervalMs = 1_000, signal, onPoll } = options;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    signal?.throwIfAborted();
    let wait = intervalMs;
    try {
      const value = await probe(signal);
      onPoll?.(value);
      if (done(value)) return value;
      if (Date.now() + wait > deadline) throw expired(value, timeoutMs);
    } catch (err) {
      if (!(err instanceof HostingApiError && err.status === 429) || Date.now() > deadline) throw err;
      wait = Math.max(intervalMs, (err.retryAfterSeconds ?? 1) * 1000);
    }
    await sleep(Math.min(wait, Math.max(0, deadline - Date.now())), signal);
  }
}
