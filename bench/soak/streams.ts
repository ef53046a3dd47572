import { ClientRequest, request as httpRequest } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { takeSseEvents } from '../../test/support/sse';

/** How the last connection of a watcher ends when it was open until the audit. */
export const STOPPED = 'open until the audit';

/** One connection of a watcher, from its first event to its end. */
export interface StreamSession {
  /** ms since the soak began: the first event (the unread count) came */
  openedAt: number;
  closedAt?: number;
  /** How it ended: the server's ending event, or the socket's error or end. */
  ending?: string;
  notificationIds: string[];
  lastCount?: number;
}

/**
 * A customer's dashboard tab: the notification stream through nginx, opened again a second after
 * it ends (as EventSource does), every event kept for the audit.
 */
export class StreamWatcher {
  readonly sessions: StreamSession[] = [];
  private request?: ClientRequest;
  private stopped = false;
  private running?: Promise<void>;

  constructor(
    readonly customer: string,
    readonly accountId: string,
    private readonly apiKey: string,
    private readonly port: () => number,
    private readonly began: number,
  ) {}

  start(): void {
    this.running = this.loop();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.request?.destroy();
    await this.running;
  }

  private async loop(): Promise<void> {
    while (!this.stopped) {
      await this.connect().catch(() => undefined);
      if (!this.stopped) await sleep(1_000);
    }
  }

  private connect(): Promise<void> {
    return new Promise((resolve) => {
      let session: StreamSession | undefined;
      const finish = (ending: string) => {
        if (session && session.closedAt === undefined) {
          session.closedAt = Date.now() - this.began;
          session.ending = this.stopped ? STOPPED : ending;
        }
        resolve();
      };
      const req = httpRequest(
        {
          host: '127.0.0.1',
          port: this.port(),
          path: '/api/notifications/stream',
          headers: { Authorization: `Bearer ${this.apiKey}`, Accept: 'text/event-stream' },
        },
        (res) => {
          if (res.statusCode !== 200) {
            res.resume();
            res.on('end', () => finish(`status ${res.statusCode}`));
            return;
          }
          let buffer = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            const taken = takeSseEvents(buffer + chunk);
            buffer = taken.rest;
            for (const { event, data } of taken.events) {
              const parsed = data as { id?: string; count?: number };
              if (!session) {
                session = { openedAt: Date.now() - this.began, notificationIds: [] };
                this.sessions.push(session);
              }
              if (event === 'unread-count') session.lastCount = parsed.count;
              else if (event === 'notification' && parsed.id) session.notificationIds.push(parsed.id);
              else session.ending = event;
            }
          });
          res.on('end', () => finish(session?.ending ?? 'end'));
          res.on('error', (err) => finish(err.message));
        },
      );
      this.request = req;
      req.on('error', (err) => finish(err.message));
      req.end();
    });
  }
}
