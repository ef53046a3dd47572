import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import type { Response } from 'express';
import { DataSource } from 'typeorm';
import { AppConfig } from '@app/core';
import { NotificationsRepository } from '../notifications.repository';
import { PgListener } from './pg-listener';
import { SseStream } from './sse-stream';

const CHANNEL = 'account_notifications';
interface Announcement {
  accountId: string;
  notificationId: string | null;
}

/**
 * The open event streams of this process, by account. A new notification (or a read) is announced
 * with PostgreSQL NOTIFY when the API runs on PostgreSQL, so streams held by any API process hear
 * it; on the embedded database (one process by construction) it is delivered in process.
 */
@Injectable()
export class NotificationHub implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('NotificationStream');
  private readonly streams = new Map<string, Set<SseStream>>();
  private listener: PgListener | null = null;
  private closing = false;

  constructor(
    private readonly config: AppConfig,
    private readonly dataSource: DataSource,
    private readonly repository: NotificationsRepository,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (!this.config.databaseUrl) return;
    this.listener = new PgListener(this.config.databaseUrl, CHANNEL, {
      message: (payload) => this.received(payload),
      resumed: () => this.resync(),
    });
    await this.listener.start();
  }

  /** Serves one SSE response until the client goes away or the application shuts down. */
  async open(accountId: string, res: Response): Promise<void> {
    const stream = new SseStream(res, this.config.notificationsHeartbeatMs);
    if (this.closing) return stream.end();
    if (!stream.open) return;
    const set = this.streams.get(accountId) ?? new Set<SseStream>();
    set.add(stream);
    this.streams.set(accountId, set);
    stream.onClose(() => this.remove(accountId, stream));
    try {
      stream.send('unread-count', { count: await this.repository.unreadCount(accountId) });
    } catch (err) {
      this.logger.warn(`Could not start a stream: ${(err as Error).message}`);
      stream.end();
    }
  }

  listenerCount(accountId?: string): number {
    if (accountId) return this.streams.get(accountId)?.size ?? 0;
    return [...this.streams.values()].reduce((n, s) => n + s.size, 0);
  }

  /** The backend pid of the LISTEN session; null on the embedded database or while reconnecting. */
  get listenerBackendPid(): number | null {
    return this.listener?.backendPid ?? null;
  }

  /** True when this process hears other processes' announcements (always, on the embedded database). */
  get listening(): boolean {
    return !this.config.databaseUrl || (this.listener?.connected ?? false);
  }

  /** Tells every API process that an account has a new notification (id) or a changed unread count (null). */
  async announce(accountId: string, notificationId: string | null): Promise<void> {
    const message: Announcement = { accountId, notificationId };
    try {
      if (this.config.databaseUrl) await this.dataSource.query('SELECT pg_notify($1, $2)', [CHANNEL, JSON.stringify(message)]);
      else await this.deliver(message);
    } catch (err) {
      this.logger.warn(`Could not announce a notification: ${(err as Error).message}`);
    }
  }

  private received(payload: string): void {
    let message: Announcement;
    try {
      message = JSON.parse(payload) as Announcement;
    } catch {
      this.logger.warn('Ignored a malformed notification announcement');
      return;
    }
    this.deliver(message).catch((err: Error) => this.logger.warn(`Could not deliver a notification: ${err.message}`));
  }

  /** After LISTEN was down, announcements may have been missed: resend every local stream's count. */
  private resync(): void {
    for (const accountId of this.streams.keys()) void this.deliver({ accountId, notificationId: null }).catch(() => undefined);
  }

  private async deliver({ accountId, notificationId }: Announcement): Promise<void> {
    if (!this.streams.get(accountId)?.size) return;
    const [notification, count] = await Promise.all([
      notificationId ? this.repository.findOne(accountId, notificationId) : Promise.resolve(null),
      this.repository.unreadCount(accountId),
    ]);
    for (const stream of this.streams.get(accountId) ?? []) {
      if (notification) stream.send('notification', notification);
      stream.send('unread-count', { count });
    }
  }

  private remove(accountId: string, stream: SseStream): void {
    const set = this.streams.get(accountId);
    set?.delete(stream);
    if (set && !set.size) this.streams.delete(accountId);
  }

  /** Ends every stream with a reconnect hint (clients come back, to another replica), then stops listening. */
  async beforeApplicationShutdown(): Promise<void> {
    this.closing = true;
    for (const set of this.streams.values()) for (const stream of set) stream.end();
    this.streams.clear();
    await this.listener?.stop();
    this.listener = null;
  }
}
