import { backoff } from '@app/core';

/** Doubling from the base, capped at 6 hours. */
const MAX_DELAY_SECONDS = 6 * 3600;

/**
 * Seconds until the attempt after `attempts` failed ones: base * 2^(attempts-1), capped, with
 * ±20% jitter so endpoints that failed together are not retried together.
 */
export function retryDelaySeconds(attempts: number, baseSeconds: number, random = Math.random): number {
  return Math.max(1, Math.round(backoff(attempts, { base: baseSeconds, max: MAX_DELAY_SECONDS, jitter: 0.2, random })));
}
