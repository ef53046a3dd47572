import { Logger } from '@nestjs/common';
import { Client } from 'pg';
import type { DataSource } from 'typeorm';
import { backoff } from '../leases/backoff';

const MIN_BACKOFF_MS = 500;
const MAX_BACKOFF_MS = 30_000;

export interface PgListenerHandlers {
  /** A payload NOTIFY'd on the channel, by any process on the database. */
  message(payload: string): void;
  /** LISTEN is back after an outage, or up only after its first tries failed: anything sent meanwhile was missed. */
  resumed(): void;
}

/**
 * One dedicated connection that LISTENs on a channel (a pooled connection cannot: LISTEN belongs
 * to the session). A lost connection is replaced with exponential backoff; errors are logged,
 * never thrown, so a database restart cannot crash the process.
 */
export class PgListener {
  private readonly logger: Logger;
  /** The connection in use or being opened; a late error from an older one is ignored. */
  private client: Client | null = null;
  private listening = false;
  private retryTimer: NodeJS.Timeout | null = null;
  /** Connections lost in a row. */
  private failures = 0;
  private everConnected = false;
  private stopped = false;

  constructor(
    private readonly connectionString: string,
    private readonly channel: string,
    private readonly handlers: PgListenerHandlers,
    loggerName = 'Listener',
  ) {
    this.logger = new Logger(loggerName);
  }

  get connected(): boolean {
    return this.listening;
  }

  /** The LISTEN session's backend pid (pg_stat_activity.pid), for operators and tests. */
  get backendPid(): number | null {
    return this.listening ? ((this.client as unknown as { processID: number | null }).processID ?? null) : null;
  }

  async start(): Promise<void> {
    if (this.stopped) return;
    const client = new Client({ connectionString: this.connectionString, application_name: 'hosting-account-api-listen' });
    this.client = client;
    client.on('notification', (msg) => {
      if (msg.channel === this.channel && msg.payload) this.handlers.message(msg.payload);
    });
    client.on('error', (err) => this.lost(client, err));
    client.on('end', () => this.lost(client, new Error('connection ended')));
    try {
      await client.connect();
      await client.query(`LISTEN ${this.channel}`);
    } catch (err) {
      this.lost(client, err as Error);
      return;
    }
    if (this.stopped) {
      await this.close(client);
      return;
    }
    if (this.client !== client) return; // lost while connecting; a retry is scheduled
    // The caller of the first start went on once it failed: what was sent since then was missed too.
    const missed = this.everConnected || this.failures > 0;
    this.listening = true;
    this.failures = 0;
    this.everConnected = true;
    if (missed) {
      this.logger.log('Listening again');
      this.handlers.resumed();
    }
  }

  /**
   * One round trip on the LISTEN connection: PostgreSQL sends every notification that reached this
   * session before it answers, so when this resolves, each NOTIFY committed before the call has
   * been handed to `message`. Throws while not listening.
   */
  async roundTrip(): Promise<void> {
    const client = this.client;
    if (!this.listening || !client) throw new Error('not listening');
    await client.query('SELECT 1');
  }

  /** Releases the connection; no reconnect after this. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    const client = this.client;
    this.client = null;
    this.listening = false;
    if (client) await this.close(client);
  }

  private lost(client: Client, err: Error): void {
    void this.close(client);
    if (this.client !== client) return;
    this.client = null;
    this.listening = false;
    if (this.stopped || this.retryTimer) return;
    const delay = backoff(++this.failures, { base: MIN_BACKOFF_MS, max: MAX_BACKOFF_MS });
    this.logger.warn(`LISTEN connection lost (${err.message}); retrying in ${delay} ms`);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      void this.start();
    }, delay);
    this.retryTimer.unref();
  }

  private async close(client: Client): Promise<void> {
    client.removeAllListeners('end');
    client.on('error', () => undefined); // late socket errors of a client being dropped
    let timer: NodeJS.Timeout | undefined;
    const giveUp = new Promise<void>((resolve) => (timer = setTimeout(resolve, 2_000)));
    await Promise.race([client.end().catch(() => undefined), giveUp]);
    clearTimeout(timer);
  }
}

/** Sends `payload` to every session LISTENing on `channel` (every API process), at once: not part of a transaction. */
export async function pgNotify(dataSource: DataSource, channel: string, payload: string): Promise<void> {
  await dataSource.query('SELECT pg_notify($1, $2)', [channel, payload]);
}
