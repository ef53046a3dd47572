import { BeforeApplicationShutdown, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { AppConfig, CredentialsRevokedEvent, RecheckAnnouncements } from '@app/core';
import type { ServiceStatusChangedEvent } from '@app/services';
import { ConsoleConnections } from './console-connections';
import { ConsoleSessionsRepository } from './console-sessions.repository';
import type { InstanceActionFinishedEvent } from '../vps.events';

/**
 * Every API process checks an account's open consoles now (issue 26, finding 3) after a session
 * ended, an API key was revoked or a password changed (`credentials.revoked`), a service's status
 * changed or a machine was stopped, whichever replica the console is on.
 */
@Injectable()
export class ConsoleRechecks implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly announcements: RecheckAnnouncements;

  constructor(config: AppConfig, sessions: ConsoleSessionsRepository, connections: ConsoleConnections) {
    this.announcements = new RecheckAnnouncements(
      {
        databaseUrl: config.databaseUrl ?? null,
        channel: 'console_rechecks',
        notify: (channel, accountId) => sessions.notifyProcesses(channel, accountId),
        what: 'console',
      },
      connections,
      'Console',
    );
  }

  onApplicationBootstrap(): Promise<void> {
    return this.announcements.listen();
  }

  beforeApplicationShutdown(): Promise<void> {
    return this.announcements.stop();
  }

  @OnEvent('credentials.revoked', { async: true, promisify: true })
  credentialsRevoked(event: CredentialsRevokedEvent): Promise<void> {
    return this.announcements.announce(event.accountId);
  }

  @OnEvent('service.status_changed', { async: true, promisify: true })
  statusChanged(event: ServiceStatusChangedEvent): Promise<void> {
    return this.announcements.announce(event.accountId);
  }

  @OnEvent('instance.action_succeeded', { async: true, promisify: true })
  async actionSucceeded(event: InstanceActionFinishedEvent): Promise<void> {
    if (event.payload.type === 'stop') await this.announcements.announce(event.accountId);
  }
}
