import { Injectable } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { Problem } from '../errors/problem';
import { RateLimitStore } from './rate-limit.store';

const WINDOW_SECONDS = 60;

/** The store keys of one email's failures: from one IP, and over all IPs. */
export function passwordFailureKeys(email: string, ip: string | null | undefined): { pair: string; email: string } {
  const normal = email.trim().toLowerCase();
  return { pair: `login-failed:pair:${normal}:${ip ?? 'unknown'}`, email: `login-failed:email:${normal}` };
}

/**
 * One failure budget for every route that checks a password, so guesses cannot be spread over routes: sign-in,
 * password change, email change, two-factor enable and disable. Counted per account email and
 * IP (RATE_LIMIT_LOGIN_PER_MINUTE), so failing from other addresses cannot lock the owner out;
 * past RATE_LIMIT_LOGIN_EMAIL_FAILURES_PER_MINUTE for the email over all IPs, an IP that already
 * failed for it gets no further try in the window. The login route applies it in the guard (the
 * email is in the body); signed-in routes apply it in their service, where the account is known.
 */
@Injectable()
export class PasswordFailures {
  constructor(
    private readonly store: RateLimitStore,
    private readonly config: AppConfig,
  ) {}

  /** How many more failures this IP may have for this email now (0: refuse the attempt). */
  async remaining(email: string, ip: string | null | undefined): Promise<{ limit: number; remaining: number; resetSeconds: number }> {
    const limits = this.config.rateLimit;
    const keys = passwordFailureKeys(email, ip);
    const seen = await this.store.peek(keys.pair, WINDOW_SECONDS);
    const ceiling = limits.loginEmailFailuresPerMinute;
    const pastCeiling = ceiling > 0 && (await this.store.peek(keys.email, WINDOW_SECONDS)).count >= ceiling;
    const limit = pastCeiling ? Math.min(1, limits.loginPerMinute) : limits.loginPerMinute;
    return { limit, remaining: limit - seen.count, resetSeconds: seen.resetSeconds };
  }

  /** 429 when the budget of this email and IP is spent; nothing when the limit is off (0). */
  async check(email: string, ip: string | null | undefined): Promise<void> {
    if (this.config.rateLimit.loginPerMinute <= 0) return;
    const budget = await this.remaining(email, ip);
    if (budget.remaining <= 0) throw Problem.rateLimited(budget.resetSeconds);
  }

  async failed(email: string, ip: string | null | undefined): Promise<void> {
    const keys = passwordFailureKeys(email, ip);
    await Promise.all([this.store.hit(keys.pair, WINDOW_SECONDS), this.store.hit(keys.email, WINDOW_SECONDS)]);
  }
}
