export interface WindowHit {
  /** Requests counted in the current window, this one included. */
  count: number;
  /** Seconds until the window resets. */
  resetSeconds: number;
}

/** Where counters live: process memory by default, Redis when REDIS_URL is set. */
export abstract class RateLimitStore {
  abstract hit(key: string, windowSeconds: number): Promise<WindowHit>;
  /** The current window's count without counting (0 and the full window when none is open). */
  abstract peek(key: string, windowSeconds: number): Promise<WindowHit>;
  /** Takes back one hit of the current window (a request the bucket counts only when it is accepted). */
  abstract release(key: string): Promise<void>;
  async close(): Promise<void> {}
}
