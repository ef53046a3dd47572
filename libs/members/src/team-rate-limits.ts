import { Injectable } from '@nestjs/common';
import { AppConfig, Problem, RateLimitStore } from '@app/core';

/** Invitations sent, and member changes made, per account and hour: RATE_LIMIT_INVITATIONS_PER_HOUR each. */
@Injectable()
export class TeamRateLimits {
  constructor(
    private readonly store: RateLimitStore,
    private readonly config: AppConfig,
  ) {}

  invitation(accountId: string): Promise<void> {
    return this.spend(`invitations:account:${accountId}`);
  }

  memberChange(accountId: string): Promise<void> {
    return this.spend(`member-changes:account:${accountId}`);
  }

  private async spend(key: string): Promise<void> {
    const limit = this.config.rateLimit.invitationsPerHour;
    if (limit <= 0) return;
    const hit = await this.store.hit(key, 3600);
    if (hit.count > limit) throw Problem.rateLimited(hit.resetSeconds);
  }
}
