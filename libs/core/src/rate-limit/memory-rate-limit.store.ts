import { RateLimitStore, WindowHit } from './rate-limit.store';

interface Window {
  count: number;
  resetAt: number;
}

/** Fixed windows in a Map; expired windows are swept as they are met and once a minute. */
export class MemoryRateLimitStore extends RateLimitStore {
  private readonly windows = new Map<string, Window>();
  private readonly sweeper = setInterval(() => this.sweep(), 60_000).unref();

  async hit(key: string, windowSeconds: number): Promise<WindowHit> {
    const now = Date.now();
    let window = this.windows.get(key);
    if (!window || window.resetAt <= now) {
      window = { count: 0, resetAt: now + windowSeconds * 1000 };
      this.windows.set(key, window);
    }
    window.count++;
    return { count: window.count, resetSeconds: Math.max(1, Math.ceil((window.resetAt - now) / 1000)) };
  }

  async peek(key: string, windowSeconds: number): Promise<WindowHit> {
    const now = Date.now();
    const window = this.windows.get(key);
    if (!window || window.resetAt <= now) return { count: 0, resetSeconds: windowSeconds };
    return { count: window.count, resetSeconds: Math.max(1, Math.ceil((window.resetAt - now) / 1000)) };
  }

  async release(key: string): Promise<void> {
    const window = this.windows.get(key);
    if (window && window.resetAt > Date.now() && window.count > 0) window.count--;
  }

  private sweep(): void {
    const now = Date.now();
    for (const [key, window] of this.windows) if (window.resetAt <= now) this.windows.delete(key);
  }

  override async close(): Promise<void> {
    clearInterval(this.sweeper);
  }
}
