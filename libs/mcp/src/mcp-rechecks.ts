import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { AppConfig, CredentialsRevokedEvent, PgListener } from '@app/core';
import { McpNoticesRepository } from './mcp-notices.repository';
import { McpSessions } from './mcp-sessions';

const CHANNEL = 'mcp_rechecks';
const ACCOUNT_ID = /^[0-9a-f-]{36}$/i;

/**
 * A revoked key, an ended session or a changed password (`credentials.revoked`) makes every API
 * process check the account's MCP sessions now, as consoles do (ConsoleRechecks): a NOTIFY on
 * PostgreSQL, in process on the embedded database. Missed announcements (LISTEN down) are made up
 * for by checking every session, and by the periodic checks.
 */
@Injectable()
export class McpRechecks implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Mcp');
  private listener: PgListener | null = null;

  constructor(
    private readonly config: AppConfig,
    private readonly notices: McpNoticesRepository,
    private readonly sessions: McpSessions,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (!this.config.databaseUrl) return;
    this.listener = new PgListener(
      this.config.databaseUrl,
      CHANNEL,
      {
        message: (accountId) => {
          if (ACCOUNT_ID.test(accountId)) void this.sessions.recheck(accountId);
        },
        resumed: () => void this.sessions.recheckAll(),
      },
      'McpListener',
    );
    await this.listener.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.listener?.stop();
    this.listener = null;
  }

  @OnEvent('credentials.revoked', { async: true, promisify: true })
  async credentialsRevoked(event: CredentialsRevokedEvent): Promise<void> {
    try {
      if (this.config.databaseUrl) await this.notices.notifyProcesses(CHANNEL, event.accountId);
      else await this.sessions.recheck(event.accountId);
    } catch (err) {
      this.logger.warn(`Could not announce an MCP session check: ${(err as Error).message}`);
    }
  }
}
