import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import type { Response } from 'express';
import { AppConfig, CredentialHold, CredentialRechecks, PgListener, Problem } from '@app/core';
import { NotificationResponse, UnreadCountResponse } from '../dto/notification.response';
import { AccountNews, NotificationsRepository } from '../notifications.repository';
import { NotificationBatchFetch } from './notification-batch-fetch';
import { SseStream, sseEvent } from './sse-stream';
import { STREAM_ENDINGS, StreamCredential } from './stream-credential';

const CHANNEL = 'account_notifications';
const RECONNECT_AFTER_LIMIT_SECONDS = 30;
/** Every open stream's credential is verified again this often, whatever was announced. */
const RECHECK_MS = 60_000;
/**
 * The heartbeat interval is cut into this many ticks, each beating its share of the streams: every
 * stream still gets one per interval, and 10,000 streams are not written all in one turn.
 */
const HEARTBEAT_SLICES = 10;
/** Credential checks a recheck runs at once: the rest of the pool stays free for requests. */
const RECHECK_CONCURRENCY = 4;
interface Announcement {
  accountId: string;
  notificationId: string | null;
  /** Credentials of the account were revoked: streams check theirs again. */
  recheck?: boolean;
}

interface OpenStream extends CredentialHold {
  stream: SseStream;
  ip: string;
  credential: StreamCredential;
  timer: NodeJS.Timeout;
  /** The heartbeat tick that beats this stream. */
  slice: number;
  /** What came before the stream's first count was sent (null once it was): it follows the count. */
  early: string[] | null;
}

/**
 * The open event streams of this process, by account. A new notification (or a read) is announced
 * with PostgreSQL NOTIFY when the API runs on PostgreSQL, so streams held by any API process hear
 * it; on the embedded database (one process by construction) it is delivered in process.
 */
@Injectable()
export class NotificationHub implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('NotificationStream');
  private readonly streams = new Map<string, Set<OpenStream>>();
  private readonly perIp = new Map<string, number>();
  private readonly rechecks = new CredentialRechecks<OpenStream>(this.logger, {
    everyMs: RECHECK_MS,
    concurrency: RECHECK_CONCURRENCY,
    what: 'stream',
  });
  /** One heartbeat timer for every stream of the process, not one per stream. */
  private readonly heartbeat: NodeJS.Timeout;
  private ticks = 0;
  private opened = 0;
  private readonly batchFetch: NotificationBatchFetch;
  private listener: PgListener | null = null;
  private closing = false;

  constructor(
    private readonly config: AppConfig,
    private readonly repository: NotificationsRepository,
  ) {
    this.heartbeat = setInterval(() => this.beat(), Math.max(1, config.notificationsHeartbeatMs / HEARTBEAT_SLICES)).unref();
    this.batchFetch = new NotificationBatchFetch(repository, (accountId, news) => this.push(accountId, news), this.logger);
  }

  async onApplicationBootstrap(): Promise<void> {
    if (!this.config.databaseUrl) return;
    this.listener = new PgListener(
      this.config.databaseUrl,
      CHANNEL,
      {
        message: (payload) => this.received(payload),
        resumed: () => this.resync(),
      },
      'NotificationListener',
    );
    await this.listener.start();
  }

  /**
   * Serves one SSE response until the client goes away, the application shuts down, the
   * credential stops being valid (revoked, or expired: never past an access token's exp), a newer
   * stream of the account takes its place (at most NOTIFICATIONS_MAX_STREAMS_PER_ACCOUNT per
   * process; the oldest ends), or its maximum lifetime is over. More streams from one IP than
   * NOTIFICATIONS_MAX_STREAMS_PER_IP are refused with 429.
   */
  async open(credential: StreamCredential, ip: string, res: Response): Promise<void> {
    const limits = this.config.notificationStreams;
    if ((this.perIp.get(ip) ?? 0) >= limits.perIp) throw Problem.rateLimited(RECONNECT_AFTER_LIMIT_SECONDS);
    const accountId = credential.principal.accountId;
    const stream = new SseStream(res);
    if (this.closing) return stream.end();
    if (!stream.open) return;
    const set = this.streams.get(accountId) ?? new Set<OpenStream>();
    for (const oldest of [...set].slice(0, Math.max(0, set.size - limits.perAccount + 1)))
      this.finish(oldest, STREAM_ENDINGS.tooManyStreams);
    const lifetimeEnd = Date.now() + limits.maxSeconds * 1000;
    const expired = credential.validUntil !== null && credential.validUntil.getTime() <= lifetimeEnd;
    const endsAt = expired ? credential.validUntil!.getTime() : lifetimeEnd;
    const open: OpenStream = {
      stream,
      ip,
      credential,
      timer: undefined as unknown as NodeJS.Timeout,
      slice: this.opened++ % HEARTBEAT_SLICES,
      accountId,
      loginId: credential.principal.loginId,
      key: credential.key,
      stillValid: () => credential.stillValid(),
      ended: () => this.finish(open, STREAM_ENDINGS.credentialInvalid),
      early: [],
    };
    open.timer = setTimeout(
      () => this.finish(open, expired ? STREAM_ENDINGS.credentialInvalid : STREAM_ENDINGS.maxLifetime),
      Math.max(0, endsAt - Date.now()),
    );
    set.add(open);
    this.streams.set(accountId, set);
    this.rechecks.add(open);
    this.perIp.set(ip, (this.perIp.get(ip) ?? 0) + 1);
    stream.onClose(() => this.remove(accountId, open));
    try {
      // Registered before the count is read, so nothing made meanwhile is missed; it is sent after the count.
      stream.send('unread-count', UnreadCountResponse.fromCount(await this.repository.unreadCount(accountId)));
      for (const events of open.early ?? []) stream.push(events);
      open.early = null;
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

  /**
   * Where the statement that makes a notification, or changes an unread count, announces it to every
   * API process (NOTIFY, delivered at its commit); null on the embedded database, where `changedHere` does.
   */
  get channel(): string | null {
    return this.config.databaseUrl ? CHANNEL : null;
  }

  /** After such a statement: on the embedded database (one process) this process's streams are told here. */
  changedHere(accountId: string, notificationId: string | null): void {
    if (!this.config.databaseUrl) this.queue(accountId, notificationId);
  }

  /** Tells every API process to verify again the credentials of the account's open streams. */
  async announceRevocation(accountId: string): Promise<void> {
    const message: Announcement = { accountId, notificationId: null, recheck: true };
    try {
      if (this.config.databaseUrl) await this.repository.notifyProcesses(CHANNEL, JSON.stringify(message));
      else await this.rechecks.recheck(accountId);
    } catch (err) {
      this.logger.warn(`Could not announce a revocation: ${(err as Error).message}`);
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
    if (message.recheck) void this.rechecks.recheck(message.accountId);
    else this.queue(message.accountId, message.notificationId);
  }

  /** After LISTEN was down, announcements may have been missed: resend every local stream's count. */
  private resync(): void {
    for (const accountId of this.streams.keys()) this.queue(accountId, null);
    void this.rechecks.recheckAll();
  }

  private beat(): void {
    const slice = this.ticks++ % HEARTBEAT_SLICES;
    for (const set of this.streams.values()) for (const open of set) if (open.slice === slice) open.stream.heartbeat();
  }

  private finish(open: OpenStream, ending: { event: string; data: unknown }): void {
    open.stream.end(ending.event, ending.data);
    this.remove(open.credential.principal.accountId, open);
  }

  private queue(accountId: string, notificationId: string | null): void {
    if (this.streams.has(accountId)) this.batchFetch.add(accountId, notificationId);
  }

  private push(accountId: string, { unread, notifications }: AccountNews): void {
    const events =
      notifications.map((n) => sseEvent('notification', NotificationResponse.fromRow(n))).join('') +
      sseEvent('unread-count', UnreadCountResponse.fromCount(unread));
    for (const open of this.streams.get(accountId) ?? []) {
      if (open.early) open.early.push(events);
      else open.stream.push(events);
    }
  }

  private remove(accountId: string, open: OpenStream): void {
    const set = this.streams.get(accountId);
    if (!set?.delete(open)) return;
    clearTimeout(open.timer);
    this.rechecks.drop(open);
    if (!set.size) this.streams.delete(accountId);
    const left = (this.perIp.get(open.ip) ?? 1) - 1;
    if (left > 0) this.perIp.set(open.ip, left);
    else this.perIp.delete(open.ip);
  }

  /** Ends every stream with a reconnect hint (clients come back, to another replica), then stops listening. */
  async beforeApplicationShutdown(): Promise<void> {
    this.closing = true;
    this.rechecks.stop();
    this.batchFetch.stop();
    clearInterval(this.heartbeat);
    for (const set of this.streams.values()) {
      for (const open of set) {
        clearTimeout(open.timer);
        open.stream.end();
      }
    }
    this.streams.clear();
    this.perIp.clear();
    await this.listener?.stop();
    this.listener = null;
  }
}
