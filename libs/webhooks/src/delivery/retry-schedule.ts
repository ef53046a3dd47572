/** Doubling from the base, capped at 6 hours. */
const MAX_DELAY_SECONDS = 6 * 3600;

/**
 * Seconds until the attempt after `attempts` failed ones: base * 2^(attempts-1), capped, with
 * ±20% jitter so endpoints that failed together are not retried together.
 */
export function retryDelaySeconds(attempts: number, baseSeconds: number, random = Math.random): number {
  const delay = Math.min(baseSeconds * 2 ** Math.max(0, attempts - 1), MAX_DELAY_SECONDS);
  return Math.max(1, Math.round(delay * (0.8 + random() * 0.4)));
}
