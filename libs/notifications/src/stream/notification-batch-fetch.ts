import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '@nestjs/common';
import { backoff } from '@app/core';
import type { AccountNews, NotificationsRepository } from '../notifications.repository';

/** Accounts per statement when a burst of announcements is fetched. */
const BURST_ACCOUNTS = 1_000;

export interface BatchFetchRetries {
  /** Fetches of one announcement before it is given up (about two minutes of a database away). */
  tries: number;
  baseMs: number;
  maxMs: number;
}

const RETRIES: BatchFetchRetries = { tries: 8, baseMs: 500, maxMs: 30_000 };

/**
 * Announcements fetched in bursts: those heard in one turn of the event loop, or while
 * the previous burst was fetched, go together, each account's announced notifications and unread
 * count in one statement per BURST_ACCOUNTS accounts, instead of two queries per announcement.
 * One burst at a time, so an account's counts arrive in order. A burst that could not be fetched (a
 * statement timeout on a starved database: the soak's hour lost notifications that way) goes back
 * into the queue and is fetched again after a backoff, with what was heard meanwhile.
 */
export class NotificationBatchFetch {
  /** Account -> the notification ids announced for it (none: only its count changed). */
  private queued = new Map<string, Set<string>>();
  /** Account -> the fetches of its queued announcements that failed in a row. */
  private failed = new Map<string, number>();
  private running = false;
  /** Aborted at the stop: no fetch after it, and a pause before a retry ends at once. */
  private readonly stopping = new AbortController();

  constructor(
    private readonly repository: NotificationsRepository,
    private readonly deliver: (accountId: string, news: AccountNews) => void,
    private readonly logger: Logger,
    private readonly retries: BatchFetchRetries = RETRIES,
  ) {}

  add(accountId: string, notificationId: string | null): void {
    if (this.stopping.signal.aborted) return;
    this.enqueue(accountId, notificationId ? [notificationId] : []);
    if (this.running) return;
    this.running = true;
    setImmediate(() => void this.run());
  }

  /** Nothing is fetched after this (the application shuts down; its pool closes). */
  stop(): void {
    this.queued.clear();
    this.stopping.abort();
  }

  private enqueue(accountId: string, ids: Iterable<string>): void {
    const queued = this.queued.get(accountId) ?? new Set<string>();
    for (const id of ids) queued.add(id);
    this.queued.set(accountId, queued);
  }

  private async run(): Promise<void> {
    try {
      while (this.queued.size && !this.stopping.signal.aborted) {
        const burst = [...this.queued];
        this.queued = new Map();
        const parts = Array.from({ length: Math.ceil(burst.length / BURST_ACCOUNTS) }, (_, i) =>
          burst.slice(i * BURST_ACCOUNTS, (i + 1) * BURST_ACCOUNTS),
        );
        const tries = Math.max(0, ...(await Promise.all(parts.map((part) => this.fetch(part)))));
        if (!tries) continue;
        const delay = backoff(tries, { base: this.retries.baseMs, max: this.retries.maxMs, jitter: 0.2 });
        await sleep(delay, undefined, { signal: this.stopping.signal, ref: false }).catch(() => undefined);
      }
    } finally {
      this.running = false;
    }
  }

  /** 0 when the part was delivered; otherwise how often its accounts' fetch has failed (they are queued again). */
  private async fetch(part: [string, Set<string>][]): Promise<number> {
    try {
      const news = await this.repository.news(
        part.map(([accountId]) => accountId),
        part.flatMap(([, ids]) => [...ids]),
      );
      for (const [accountId] of part) this.failed.delete(accountId);
      for (const [accountId, accountNews] of news) this.deliver(accountId, accountNews);
      return 0;
    } catch (err) {
      let most = 0;
      for (const [accountId, ids] of part) {
        const tries = (this.failed.get(accountId) ?? 0) + 1;
        if (tries >= this.retries.tries) {
          this.failed.delete(accountId);
          continue;
        }
        this.failed.set(accountId, tries);
        this.enqueue(accountId, ids);
        most = Math.max(most, tries);
      }
      const next = most ? 'fetched again shortly' : 'given up';
      this.logger.warn(`Could not deliver notifications: ${(err as Error).message} (${next})`);
      return most;
    }
  }
}
