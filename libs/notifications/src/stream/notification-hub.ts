import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import type { Response } from 'express';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { AppConfig } from '@app/core';
import { NotificationsRepository } from '../notifications.repository';

const CHANNEL = 'account_notifications';
export const HEARTBEAT_MS = Number(process.env.NOTIFICATIONS_HEARTBEAT_MS ?? 15_000);
const RECONNECT_HINT_MS = 2_000;

interface Stream {
  res: Response;
  heartbeat: NodeJS.Timeout;
}

interface Announcement {
  accountId: string;
  notificationId: string | null;
}

/**
 * Open event streams of this process, by account. A new notification (or a read) is announced
 * through PostgreSQL NOTIFY when the API runs on PostgreSQL, so streams held by any process hear
 * it; on the embedded database (one process) it is delivered in process.
 */
@Injectable()
export class NotificationHub implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('NotificationStream');
  private readonly streams = new Map<string, Set<Stream>>();
  private listener: Client | null = null;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private closing = false;

  constructor(
    private readonly config: AppConfig,
    private readonly dataSource: DataSource,
    private readonly repository: NotificationsRepository,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (this.config.databaseUrl) await this.listen();
  }

  /** Registers an SSE response; it is removed when the client goes away. */
  async open(accountId: string, res: Response): Promise<void> {
    res.status(200);
    res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Connection', 'keep-alive');
    res.setHeader('X-Accel-Buffering', 'no');
    res.flushHeaders();
    res.write(`retry: ${RECONNECT_HINT_MS}\n\n`);
    const stream: Stream = { res, heartbeat: setInterval(() => res.write(': heartbeat\n\n'), HEARTBEAT_MS) };
    const set = this.streams.get(accountId) ?? new Set<Stream>();
    set.add(stream);
    this.streams.set(accountId, set);
    res.on('close', () => this.remove(accountId, stream));
    this.send(stream, 'unread-count', { count: await this.repository.unreadCount(accountId) });
  }

  listenerCount(accountId?: string): number {
    if (accountId) return this.streams.get(accountId)?.size ?? 0;
    return [...this.streams.values()].reduce((n, s) => n + s.size, 0);
  }

  /** Tells every process that an account has a new notification (id) or a changed unread count (null). */
  async announce(accountId: string, notificationId: string | null): Promise<void> {
    const message: Announcement = { accountId, notificationId };
    try {
      if (this.config.databaseUrl) await this.dataSource.query('SELECT pg_notify($1, $2)', [CHANNEL, JSON.stringify(message)]);
      else await this.deliver(message);
    } catch (err) {
      this.logger.warn(`Could not announce a notification: ${(err as Error).message}`);
    }
  }

  private async deliver({ accountId, notificationId }: Announcement): Promise<void> {
    const set = this.streams.get(accountId);
    if (!set?.size) return;
    const [notification, count] = await Promise.all([
      notificationId ? this.repository.findOne(accountId, notificationId) : Promise.resolve(null),
      this.repository.unreadCount(accountId),
    ]);
    for (const stream of set) {
      if (notification) this.send(stream, 'notification', notification);
      this.send(stream, 'unread-count', { count });
    }
  }

  private send(stream: Stream, event: string, data: unknown): void {
    if (!stream.res.writableEnded) stream.res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  }

  private remove(accountId: string, stream: Stream): void {
    clearInterval(stream.heartbeat);
    const set = this.streams.get(accountId);
    set?.delete(stream);
    if (set && !set.size) this.streams.delete(accountId);
  }

  private async listen(): Promise<void> {
    const client = new Client({ connectionString: this.config.databaseUrl, application_name: 'hosting-account-api-listen' });
    client.on('error', (err) => this.reconnect(err));
    client.on('end', () => this.reconnect(new Error('connection ended')));
    client.on('notification', (msg) => {
      if (msg.channel !== CHANNEL || !msg.payload) return;
      try {
        void this.deliver(JSON.parse(msg.payload) as Announcement).catch((err: Error) => this.logger.warn(err.message));
      } catch {
        this.logger.warn('Ignored a malformed notification announcement');
      }
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANNEL}`);
      this.listener = client;
    } catch (err) {
      client.removeAllListeners('end');
      await client.end().catch(() => undefined);
      this.reconnect(err as Error);
    }
  }

  private reconnect(err: Error): void {
    if (this.closing || this.reconnectTimer) return;
    this.logger.warn(`Notification listener lost (${err.message}); reconnecting`);
    this.listener = null;
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      void this.listen();
    }, 1000);
    this.reconnectTimer.unref();
  }

  /** Ends every stream with a reconnect hint, so clients come back to another replica. */
  async beforeApplicationShutdown(): Promise<void> {
    this.closing = true;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    for (const [accountId, set] of this.streams) {
      for (const stream of set) {
        stream.res.write(`retry: ${RECONNECT_HINT_MS}\nevent: shutdown\ndata: {}\n\n`);
        stream.res.end();
        this.remove(accountId, stream);
      }
    }
    const listener = this.listener;
    this.listener = null;
    if (listener) {
      listener.removeAllListeners('end');
      await listener.end().catch(() => undefined);
    }
  }
}
