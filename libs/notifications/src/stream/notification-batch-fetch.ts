import type { Logger } from '@nestjs/common';
import type { AccountNews, NotificationsRepository } from '../notifications.repository';

/** Accounts per statement when a burst of announcements is fetched. */
const BURST_ACCOUNTS = 1_000;

/**
 * Announcements fetched in bursts: those heard in one turn of the event loop, or while
 * the previous burst was fetched, go together, each account's announced notifications and unread
 * count in one statement per BURST_ACCOUNTS accounts, instead of two queries per announcement.
 * One burst at a time, so an account's counts arrive in order.
 */
export class NotificationBatchFetch {
  /** Account -> the notification ids announced for it (none: only its count changed). */
  private queued = new Map<string, Set<string>>();
  private running = false;

  constructor(
    private readonly repository: NotificationsRepository,
    private readonly deliver: (accountId: string, news: AccountNews) => void,
    private readonly logger: Logger,
  ) {}

  add(accountId: string, notificationId: string | null): void {
    const ids = this.queued.get(accountId) ?? new Set<string>();
    if (notificationId) ids.add(notificationId);
    this.queued.set(accountId, ids);
    if (this.running) return;
    this.running = true;
    setImmediate(() => void this.run());
  }

  private async run(): Promise<void> {
    try {
      while (this.queued.size) {
        const burst = [...this.queued];
        this.queued = new Map();
        const parts = Array.from({ length: Math.ceil(burst.length / BURST_ACCOUNTS) }, (_, i) =>
          burst.slice(i * BURST_ACCOUNTS, (i + 1) * BURST_ACCOUNTS),
        );
        await Promise.all(parts.map((part) => this.fetch(part)));
      }
    } finally {
      this.running = false;
    }
  }

  private async fetch(part: [string, Set<string>][]): Promise<void> {
    try {
      const news = await this.repository.news(
        part.map(([accountId]) => accountId),
        part.flatMap(([, ids]) => [...ids]),
      );
      for (const [accountId, accountNews] of news) this.deliver(accountId, accountNews);
    } catch (err) {
      this.logger.warn(`Could not deliver notifications: ${(err as Error).message}`);
    }
  }
}
