import { Injectable } from '@nestjs/common';

/** Keys remembered at most: an attacker cycling keys costs memory only up to this bound. */
const MAX_KEYS = 10_000;
/** Distinct addresses a summary counts at most (and lists, fewer): its memory stays bounded too. */
const MAX_SUMMARY_IPS = 1_000;
const LISTED_IPS = 20;

/**
 * What was not recorded one by one in a window once its cap was reached:
 * the count and the distinct client addresses, kept in one summary entry per key and window, so
 * a flood from one address cannot hide another address's attempts.
 */
export class OverflowSummary {
  failures = 0;
  private readonly addresses = new Set<string>();
  /** The summary entry's id once written; writers of one summary run one after another on this chain. */
  entryId: string | null = null;
  chain: Promise<void> = Promise.resolve();

  constructor(readonly windowStart: number) {}

  add(ip: string | null | undefined): void {
    this.failures += 1;
    const address = ip || 'unknown';
    if (this.addresses.size < MAX_SUMMARY_IPS || this.addresses.has(address)) this.addresses.add(address);
  }

  details(windowMs: number): Record<string, unknown> {
    return {
      failures: this.failures,
      distinctIps: this.addresses.size,
      ips: [...this.addresses].slice(0, LISTED_IPS),
      windowStart: new Date(this.windowStart).toISOString(),
      windowEnd: new Date(this.windowStart + windowMs).toISOString(),
    };
  }
}

interface Window {
  start: number;
  count: number;
  overflow?: OverflowSummary;
}

export type Admission = { record: true } | { record: false; summary: OverflowSummary };

/**
 * Bounds the entries recorded for failures an outsider can cause at will (wrong passwords, a
 * revoked key used in a loop): at most `max` per key per window, per process. The failed request
 * itself is refused regardless; only its recording is skipped, so the log cannot be used to
 * amplify writes.
 */
@Injectable()
export class ActivityThrottle {
  private readonly windows = new Map<string, Window>();

  allow(key: string, max: number, windowMs = 60_000, now = Date.now()): boolean {
    return this.admit(key, max, null, windowMs, now).record;
  }

  /** Like allow(), and past the cap the window's summary, with this failure (and its address) counted in. */
  admit(key: string, max: number, ip: string | null | undefined, windowMs = 60_000, now = Date.now()): Admission {
    const window = this.windowOf(key, windowMs, now);
    if (window.count < max) {
      window.count += 1;
      return { record: true };
    }
    window.overflow ??= new OverflowSummary(window.start);
    window.overflow.add(ip);
    return { record: false, summary: window.overflow };
  }

  private windowOf(key: string, windowMs: number, now: number): Window {
    const known = this.windows.get(key);
    if (known && now - known.start < windowMs) return known;
    if (known) this.windows.delete(key);
    if (this.windows.size >= MAX_KEYS) this.windows.delete(this.windows.keys().next().value!);
    const fresh: Window = { start: now, count: 0 };
    this.windows.set(key, fresh);
    return fresh;
  }
}
