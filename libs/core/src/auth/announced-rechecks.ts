import { BeforeApplicationShutdown, OnApplicationBootstrap } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import type { CredentialsRevokedEvent } from '../events/domain-event';
import { RecheckAnnouncements, RecheckChannel, RecheckTarget } from './recheck-announcements';

/**
 * What holds something open for a credential (a console, an MCP session) extends this: a revoked
 * key, an ended session or a changed password makes every API process check the account's holds
 * now; `announce` adds an area's own reasons.
 */
export abstract class AnnouncedRechecks implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly announcements: RecheckAnnouncements;

  protected constructor(channel: RecheckChannel, target: RecheckTarget, loggerName: string) {
    this.announcements = new RecheckAnnouncements(channel, target, loggerName);
  }

  onApplicationBootstrap(): Promise<void> {
    return this.announcements.listen();
  }

  beforeApplicationShutdown(): Promise<void> {
    return this.announcements.stop();
  }

  @OnEvent('credentials.revoked', { async: true, promisify: true })
  credentialsRevoked(event: CredentialsRevokedEvent): Promise<void> {
    return this.announce(event.accountId);
  }

  protected announce(accountId: string): Promise<void> {
    return this.announcements.announce(accountId);
  }
}
