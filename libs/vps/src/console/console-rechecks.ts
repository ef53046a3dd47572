import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { AppConfig, CredentialsRevokedEvent, PgListener } from '@app/core';
import type { ServiceStatusChangedEvent } from '@app/services';
import { ConsoleConnections } from './console-connections';
import { ConsoleSessionsRepository } from './console-sessions.repository';
import type { InstanceActionFinishedEvent } from '../vps.events';

const CHANNEL = 'console_rechecks';
const ACCOUNT_ID = /^[0-9a-f-]{36}$/i;

/**
 * Tells every API process to check an account's open consoles now (issue 26, finding 3): after a
 * session ended, an API key was revoked or a password changed (`credentials.revoked`), a service's
 * status changed or a machine was stopped. On PostgreSQL a NOTIFY reaches every replica, whichever
 * one the console is on; on the embedded database (one process) the check runs here. Missed
 * announcements (LISTEN down) are made up for by checking every console, and by the periodic checks.
 */
@Injectable()
export class ConsoleRechecks implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Console');
  private listener: PgListener | null = null;

  constructor(
    private readonly config: AppConfig,
    private readonly sessions: ConsoleSessionsRepository,
    private readonly connections: ConsoleConnections,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (!this.config.databaseUrl) return;
    this.listener = new PgListener(
      this.config.databaseUrl,
      CHANNEL,
      {
        message: (accountId) => {
          if (ACCOUNT_ID.test(accountId)) void this.connections.recheck(accountId);
        },
        resumed: () => void this.connections.recheckAll(),
      },
      'ConsoleListener',
    );
    await this.listener.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.listener?.stop();
    this.listener = null;
  }

  @OnEvent('credentials.revoked', { async: true, promisify: true })
  credentialsRevoked(event: CredentialsRevokedEvent): Promise<void> {
    return this.announce(event.accountId);
  }

  @OnEvent('service.status_changed', { async: true, promisify: true })
  statusChanged(event: ServiceStatusChangedEvent): Promise<void> {
    return this.announce(event.accountId);
  }

  @OnEvent('instance.action_succeeded', { async: true, promisify: true })
  async actionSucceeded(event: InstanceActionFinishedEvent): Promise<void> {
    if (event.payload.type === 'stop') await this.announce(event.accountId);
  }

  private async announce(accountId: string): Promise<void> {
    try {
      if (this.config.databaseUrl) await this.sessions.notifyProcesses(CHANNEL, accountId);
      else await this.connections.recheck(accountId);
    } catch (err) {
      this.logger.warn(`Could not announce a console check: ${(err as Error).message}`);
    }
  }
}
