import { Logger } from '@nestjs/common';
import { PgListener } from '../database/pg-listener';

const ACCOUNT_ID = /^[0-9a-f-]{36}$/i;

/** What answers an announcement on this process: an account's holds, or all of them after missed ones. */
export interface RecheckTarget {
  recheck(accountId: string): Promise<void>;
  recheckAll(): Promise<void>;
}

export interface RecheckChannel {
  /** `DATABASE_URL`; none on the embedded database, where the one process checks at once. */
  databaseUrl: string | null;
  /** The NOTIFY channel of the area (`console_rechecks`, `mcp_rechecks`). */
  channel: string;
  /** Sends the NOTIFY, through the area's repository. */
  notify(channel: string, accountId: string): Promise<void>;
  /** What is held open, for the log ("console", "MCP session"). */
  what: string;
}

/**
 * Tells every API process to check an account's holds now (a revoked key, an ended session, a
 * changed password, an area's own reasons): on PostgreSQL a NOTIFY reaches every replica, whichever
 * holds them; on the embedded database (one process) the check runs here. Missed announcements
 * (LISTEN down) are made up for by checking every hold, and by the periodic checks.
 */
export class RecheckAnnouncements {
  private readonly logger: Logger;
  private listener: PgListener | null = null;

  constructor(
    private readonly options: RecheckChannel,
    private readonly target: RecheckTarget,
    private readonly loggerName: string,
  ) {
    this.logger = new Logger(loggerName);
  }

  async listen(): Promise<void> {
    const { databaseUrl, channel } = this.options;
    if (!databaseUrl) return;
    this.listener = new PgListener(
      databaseUrl,
      channel,
      {
        message: (accountId) => {
          if (ACCOUNT_ID.test(accountId)) void this.target.recheck(accountId);
        },
        resumed: () => void this.target.recheckAll(),
      },
      `${this.loggerName}Listener`,
    );
    await this.listener.start();
  }

  async stop(): Promise<void> {
    await this.listener?.stop();
    this.listener = null;
  }

  async announce(accountId: string): Promise<void> {
    try {
      if (this.options.databaseUrl) await this.options.notify(this.options.channel, accountId);
      else await this.target.recheck(accountId);
    } catch (err) {
      this.logger.warn(`Could not announce a ${this.options.what} check: ${(err as Error).message}`);
    }
  }
}
