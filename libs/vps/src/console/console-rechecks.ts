import { Injectable } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { AppConfig, AnnouncedRechecks } from '@app/core';
import type { ServiceStatusChangedEvent } from '@app/services';
import { ConsoleConnections } from './console-connections';
import { ConsoleSessionsRepository } from './console-sessions.repository';
import type { InstanceActionFinishedEvent } from '../vps.events';

/**
 * Every API process checks an account's open consoles now after a session ended, an API key was
 * revoked or a password changed, a service's status changed or a machine was stopped, whichever
 * replica the console is on.
 */
@Injectable()
export class ConsoleRechecks extends AnnouncedRechecks {
  constructor(config: AppConfig, sessions: ConsoleSessionsRepository, connections: ConsoleConnections) {
    super(
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

  @OnEvent('service.status_changed', { async: true, promisify: true })
  statusChanged(event: ServiceStatusChangedEvent): Promise<void> {
    return this.announce(event.accountId);
  }

  @OnEvent('instance.action_succeeded', { async: true, promisify: true })
  async actionSucceeded(event: InstanceActionFinishedEvent): Promise<void> {
    if (event.payload.type === 'stop') await this.announce(event.accountId);
  }
}
