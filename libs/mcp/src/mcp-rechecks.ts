import { BeforeApplicationShutdown, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { AppConfig, CredentialsRevokedEvent, RecheckAnnouncements } from '@app/core';
import { McpNoticesRepository } from './mcp-notices.repository';
import { McpSessions } from './mcp-sessions';

/** A revoked key, an ended session or a changed password makes every API process check the account's MCP sessions now, as consoles do. */
@Injectable()
export class McpRechecks implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly announcements: RecheckAnnouncements;

  constructor(config: AppConfig, notices: McpNoticesRepository, sessions: McpSessions) {
    this.announcements = new RecheckAnnouncements(
      {
        databaseUrl: config.databaseUrl ?? null,
        channel: 'mcp_rechecks',
        notify: (channel, accountId) => notices.notifyProcesses(channel, accountId),
        what: 'MCP session',
      },
      sessions,
      'Mcp',
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
}
