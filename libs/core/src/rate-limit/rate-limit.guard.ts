import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request, Response } from 'express';
import { AppConfig } from '../config/app-config';
import { Problem } from '../errors/problem';
import { RATE_LIMIT_BUCKET, RateLimitBucket } from './rate-limit.decorator';
import { RateLimitStore } from './rate-limit.store';
import { PasswordFailures } from './password-failures';

interface Rule {
  key: string;
  limit: number;
  windowSeconds: number;
  /** Failed logins of this email from the request's IP: counted only when the answer is a 401 (PasswordFailures). */
  failuresOf?: { email: string; ip: string | undefined };
  /** Counted only when the request is accepted (2xx, not an idempotent replay): a refused one is taken back. */
  acceptedOnly?: boolean;
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
 * New tickets count only those opened (a refused or replayed request is taken back).
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
    private readonly passwordFailures: PasswordFailures,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const bucket = this.reflector.get<RateLimitBucket | undefined>(RATE_LIMIT_BUCKET, context.getHandler());
    // RATE_LIMIT_PER_MINUTE=0 and no tighter bucket: nothing to count, no headers to send.
    if (!bucket && this.config.rateLimit.perMinute <= 0) return true;
    const req = context.switchToHttp().getRequest<Request>();
    const res = context.switchToHttp().getResponse<Response>();
    const rules = this.rules(req, bucket).filter((rule) => rule.limit > 0);
    if (!rules.length) return true;

    const outcomes = await Promise.all(rules.map((rule) => this.apply(rule)));
    const failures = rules.flatMap((rule) => (rule.failuresOf ? [rule.failuresOf] : []));
    if (failures.length) {
      res.once('finish', () => {
        if (res.statusCode !== 401) return;
        for (const { email, ip } of failures) void this.passwordFailures.failed(email, ip);
      });
    }
    this.releaseUnlessAccepted(rules, res);
    const tightest = outcomes.reduce((a, b) => (b.remaining < a.remaining ? b : a));
    res.setHeader('RateLimit-Limit', String(tightest.limit));
    res.setHeader('RateLimit-Remaining', String(Math.max(0, tightest.remaining)));
    res.setHeader('RateLimit-Reset', String(tightest.resetSeconds));
    const exceeded = outcomes.filter((o) => o.remaining < 0);
    if (exceeded.length) throw Problem.rateLimited(Math.max(...exceeded.map((o) => o.resetSeconds)));
    return true;
  }

  /** A bucket of accepted requests takes back the hit of one refused (400, 409, its own 429) or replayed. */
  private releaseUnlessAccepted(rules: Rule[], res: Response): void {
    const keys = rules.filter((rule) => rule.acceptedOnly).map((rule) => rule.key);
    if (!keys.length) return;
    res.once('finish', () => {
      const accepted = res.statusCode >= 200 && res.statusCode < 300 && res.getHeader('Idempotent-Replayed') !== 'true';
      if (!accepted) for (const key of keys) void this.store.release(key);
    });
  }

  private async apply(rule: Rule): Promise<Outcome> {
    if (rule.failuresOf) {
      // This attempt is not counted yet: it is refused if the failures so far already reach the limit.
      const budget = await this.passwordFailures.remaining(rule.failuresOf.email, rule.failuresOf.ip);
      return { limit: budget.limit, remaining: budget.remaining - 1, resetSeconds: budget.resetSeconds };
    }
    const hit = await this.store.hit(rule.key, rule.windowSeconds);
    return { limit: rule.limit, remaining: rule.limit - hit.count, resetSeconds: hit.resetSeconds };
  }

  private rules(req: Request, bucket?: RateLimitBucket): Rule[] {
    const limits = this.config.rateLimit;
    const who = req.principal ? `cred:${req.principal.credentialId}` : `ip:${req.ip}`;
    const rules: Rule[] = [{ key: `all:${who}`, limit: limits.perMinute, windowSeconds: 60 }];
    const account = req.principal?.accountId;
    const email = typeof req.body?.email === 'string' ? req.body.email.trim().toLowerCase() : undefined;
    switch (bucket) {
      case 'login':
        rules.push({ key: `login:ip:${req.ip}`, limit: limits.loginPerMinute * 5, windowSeconds: 60 });
        if (email) rules.push({ key: 'login-failed', limit: limits.loginPerMinute, windowSeconds: 60, failuresOf: { email, ip: req.ip } });
        break;
      case 'password':
        // currentPassword is a password guess: the login budget, per account.
        rules.push({ key: `password:${account}`, limit: limits.loginPerMinute, windowSeconds: 60 });
        break;
      case 'register':
        rules.push({ key: `register:ip:${req.ip}`, limit: limits.registerPerHour, windowSeconds: 3600 });
        if (email) rules.push({ key: `register:email:${email}`, limit: limits.registerPerHour, windowSeconds: 3600 });
        break;
      case 'password-reset':
        // Per IP a short window: many people share an office's address; per email it stays strict.
        rules.push({ key: `reset:ip:${req.ip}`, limit: limits.passwordResetIpPerMinute, windowSeconds: 60 });
        if (email) rules.push({ key: `reset:email:${email}`, limit: limits.passwordResetPerHour, windowSeconds: 3600 });
        break;
      case 'ticket-create':
        // Tickets opened, not attempts: a ticket refused with 400 leaves the budget as it was.
        rules.push({ key: `ticket:${account}`, limit: limits.ticketCreatePerMinute, windowSeconds: 60, acceptedOnly: true });
        break;
      case 'presign':
        rules.push({ key: `presign:${account}`, limit: limits.presignPerMinute, windowSeconds: 60 });
        break;
      case 'console':
        rules.push({ key: `console:${account}`, limit: limits.consolePerMinute, windowSeconds: 60 });
        break;
      case 'root-password':
        // Passwords set, not attempts: a refused reset (a stopped VPS, no agent) leaves the budget as it was.
        rules.push({ key: `root-password:${account}`, limit: limits.rootPasswordPerHour, windowSeconds: 3600, acceptedOnly: true });
        break;
      case 'rescue':
        // Rescues begun (a new root password each), not attempts, as for root-password.
        rules.push({ key: `rescue:${account}`, limit: limits.rescuePerHour, windowSeconds: 3600, acceptedOnly: true });
        break;
      case 'metrics':
        // A read costs the metrics system CPU (0.15 s for 30 days): per account, since an account may hold 100 keys.
        rules.push({ key: `metrics:${account}`, limit: limits.metricsPerMinute, windowSeconds: 60 });
        break;
    }
    return rules;
  }
}
