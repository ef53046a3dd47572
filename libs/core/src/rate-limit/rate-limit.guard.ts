import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request, Response } from 'express';
import { AppConfig } from '../config/app-config';
import { Problem } from '../errors/problem';
import { RATE_LIMIT_BUCKET, RateLimitBucket } from './rate-limit.decorator';
import { RateLimitStore } from './rate-limit.store';

interface Rule {
  key: string;
  limit: number;
  windowSeconds: number;
  /** Counted only when the answer is a 401 (failed logins), and checked before: see loginFailures(). */
  failuresOnly?: boolean;
  /** For a failure rule: refused at this count even though below `limit` (set by the per-email ceiling). */
  refuseAt?: number;
  /** More keys a failure counts against (60-second windows). */
  alsoCounts?: string[];
}

interface Outcome {
  limit: number;
  remaining: number;
  resetSeconds: number;
}

/**
 * Counts each request against the general budget of its credential (or IP, for public routes)
 * and the route's tighter bucket, and reports the most restrictive in RateLimit-* headers.
 *
 * Login counts failures, not attempts, per (email, IP), so nobody can lock an owner out by
 * failing from other addresses; a higher ceiling per email, once passed, leaves each IP one
 * failure per window for that email, so a correct password from a new IP still gets through.
 */
@Injectable()
export class RateLimitGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly store: RateLimitStore,
    private readonly config: AppConfig,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const bucket = this.reflector.get<RateLimitBucket | undefined>(RATE_LIMIT_BUCKET, context.getHandler());
    // RATE_LIMIT_PER_MINUTE=0 and no tighter bucket: nothing to count, no headers to send.
    if (!bucket && this.config.rateLimit.perMinute <= 0) return true;
    const req = context.switchToHttp().getRequest<Request>();
    const res = context.switchToHttp().getResponse<Response>();
    const rules = (await this.rules(req, bucket)).filter((rule) => rule.limit > 0);
    if (!rules.length) return true;

    const outcomes = await Promise.all(rules.map((rule) => this.apply(rule)));
    const failures = rules.filter((rule) => rule.failuresOnly);
    if (failures.length) {
      res.once('finish', () => {
        if (res.statusCode !== 401) return;
        for (const rule of failures) {
          for (const key of [rule.key, ...(rule.alsoCounts ?? [])]) void this.store.hit(key, rule.windowSeconds);
        }
      });
    }
    const tightest = outcomes.reduce((a, b) => (b.remaining < a.remaining ? b : a));
    res.setHeader('RateLimit-Limit', String(tightest.limit));
    res.setHeader('RateLimit-Remaining', String(Math.max(0, tightest.remaining)));
    res.setHeader('RateLimit-Reset', String(tightest.resetSeconds));
    const exceeded = outcomes.filter((o) => o.remaining < 0);
    if (exceeded.length) throw Problem.rateLimited(Math.max(...exceeded.map((o) => o.resetSeconds)));
    return true;
  }

  private async apply(rule: Rule): Promise<Outcome> {
    if (rule.failuresOnly) {
      // This attempt is not counted yet: it is refused if the failures so far already reach the limit.
      const seen = await this.store.peek(rule.key, rule.windowSeconds);
      const limit = Math.min(rule.limit, rule.refuseAt ?? rule.limit);
      return { limit, remaining: limit - seen.count - 1, resetSeconds: seen.resetSeconds };
    }
    const hit = await this.store.hit(rule.key, rule.windowSeconds);
    return { limit: rule.limit, remaining: rule.limit - hit.count, resetSeconds: hit.resetSeconds };
  }

  /** Failed logins for an email from this IP; past the email's ceiling, one per IP and window. */
  private async loginFailures(email: string, ip: string | undefined): Promise<Rule[]> {
    const limits = this.config.rateLimit;
    const emailKey = `login-failed:email:${email}`;
    const pair: Rule = {
      key: `login-failed:pair:${email}:${ip}`,
      limit: limits.loginPerMinute,
      windowSeconds: 60,
      failuresOnly: true,
      alsoCounts: [emailKey],
    };
    const ceiling = limits.loginEmailFailuresPerMinute;
    if (ceiling > 0 && (await this.store.peek(emailKey, 60)).count >= ceiling) pair.refuseAt = 1;
    return [pair];
  }

  private async rules(req: Request, bucket?: RateLimitBucket): Promise<Rule[]> {
    const limits = this.config.rateLimit;
    const who = req.principal ? `cred:${req.principal.credentialId}` : `ip:${req.ip}`;
    const rules: Rule[] = [{ key: `all:${who}`, limit: limits.perMinute, windowSeconds: 60 }];
    const account = req.principal?.accountId;
    const email = typeof req.body?.email === 'string' ? req.body.email.trim().toLowerCase() : undefined;
    switch (bucket) {
      case 'login':
        rules.push({ key: `login:ip:${req.ip}`, limit: limits.loginPerMinute * 5, windowSeconds: 60 });
        if (email) rules.push(...(await this.loginFailures(email, req.ip)));
        break;
      case 'password':
        // currentPassword is a password guess: the login budget, per account (issue 17, finding 7).
        rules.push({ key: `password:${account}`, limit: limits.loginPerMinute, windowSeconds: 60 });
        break;
      case 'register':
        rules.push({ key: `register:ip:${req.ip}`, limit: limits.registerPerHour, windowSeconds: 3600 });
        if (email) rules.push({ key: `register:email:${email}`, limit: limits.registerPerHour, windowSeconds: 3600 });
        break;
      case 'password-reset':
        rules.push({ key: `reset:ip:${req.ip}`, limit: limits.passwordResetPerHour * 5, windowSeconds: 3600 });
        if (email) rules.push({ key: `reset:email:${email}`, limit: limits.passwordResetPerHour, windowSeconds: 3600 });
        break;
      case 'ticket-create':
        rules.push({ key: `ticket:${account}`, limit: limits.ticketCreatePerMinute, windowSeconds: 60 });
        break;
      case 'presign':
        rules.push({ key: `presign:${account}`, limit: limits.presignPerMinute, windowSeconds: 60 });
        break;
      case 'console':
        rules.push({ key: `console:${account}`, limit: limits.consolePerMinute, windowSeconds: 60 });
        break;
    }
    return rules;
  }
}
