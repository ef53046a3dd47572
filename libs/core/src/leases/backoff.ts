export interface BackoffOptions {
  /** The delay after the first failure. */
  base: number;
  /** The delay never grows past this. */
  max: number;
  /** Spread of each delay, as a fraction either side (0.2: ±20%), so work that failed together is not retried together. */
  jitter?: number;
  random?: () => number;
}

/** The one exponential backoff: `base` after the first failure, doubling with each one, capped at `max`, then spread by `jitter`. */
export function backoff(attempt: number, { base, max, jitter = 0, random = Math.random }: BackoffOptions): number {
  const delay = Math.min(base * 2 ** Math.max(0, attempt - 1), max);
  return jitter ? delay * (1 - jitter + random() * 2 * jitter) : delay;
}
