import { Injectable } from '@nestjs/common';

/** Keys remembered at most: an attacker cycling keys costs memory only up to this bound. */
const MAX_KEYS = 10_000;

/**
 * Bounds the entries recorded for failures an outsider can cause at will (wrong passwords, a
 * revoked key used in a loop): at most `max` per key per window, per process. The failed request
 * itself is refused regardless; only its recording is skipped, so the log cannot be used to
 * amplify writes.
 */
@Injectable()
export class ActivityThrottle {
  private readonly windows = new Map<string, { start: number; count: number }>();

  allow(key: string, max: number, windowMs = 60_000, now = Date.now()): boolean {
    const known = this.windows.get(key);
    if (known && now - known.start < windowMs) {
      if (known.count >= max) return false;
      known.count += 1;
      return true;
    }
    if (known) this.windows.delete(key);
    if (this.windows.size >= MAX_KEYS) this.windows.delete(this.windows.keys().next().value!);
    this.windows.set(key, { start: now, count: 1 });
    return true;
  }
}
