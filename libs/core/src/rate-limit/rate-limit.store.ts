export interface WindowHit {
  /** Requests counted in the current window, this one included. */
  count: number;
  /** Seconds until the window resets. */
  resetSeconds: number;
}

/** Where counters live: process memory by default, Redis when REDIS_URL is set. */
export abstract class RateLimitStore {
  abstract hit(key: string, windowSeconds: number): Promise<WindowHit>;
  async close(): Promise<void> {}
}
