import { Injectable } from '@nestjs/common';
import { AppConfig, Problem, RateLimitStore } from '@app/core';

/** The per-account rate limits the route guard cannot count (the account is known only inside the service). */
@Injectable()
export class AccountRateLimits {
  constructor(
    private readonly store: RateLimitStore,
    private readonly config: AppConfig,
  ) {}

  /** Mails sent on request (verification, email change): so many an hour. */
  mail(accountId: string): Promise<void> {
    return this.spend(`email:account:${accountId}`, this.config.rateLimit.emailPerHour, 3600);
  }

  /** Second-factor codes tried: so many a minute. */
  secondFactor(accountId: string): Promise<void> {
    return this.spend(`2fa:account:${accountId}`, this.config.rateLimit.mfaPerMinute, 60);
  }

  private async spend(key: string, limit: number, windowSeconds: number): Promise<void> {
    if (limit <= 0) return;
    const hit = await this.store.hit(key, windowSeconds);
    if (hit.count > limit) throw Problem.rateLimited(hit.resetSeconds);
  }
}
