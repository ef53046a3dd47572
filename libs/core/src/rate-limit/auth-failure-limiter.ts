import { Injectable, OnModuleDestroy } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { AppConfig } from '../config/app-config';
import { Problem } from '../errors/problem';
import { RateLimitStore } from './rate-limit.store';

const WINDOW_SECONDS = 60;
/** Blocked addresses remembered by this process at most; the oldest is forgotten first. */
const MAX_BLOCKED = 10_000;

/**
 * Failed authentication is not free: every 401 and 403 counts against the
 * client's IP, and past RATE_LIMIT_AUTH_FAILURES_PER_MINUTE the IP is answered 429 before its
 * credential is looked up. Counts live in the rate-limit store (shared with REDIS_URL); the block
 * itself is remembered in process, so a blocked client costs no store or database round trip.
 */
@Injectable()
export class AuthFailureLimiter implements OnModuleDestroy {
  private readonly blocked = new Map<string, number>();
  private readonly sweeper = setInterval(() => this.sweep(), WINDOW_SECONDS * 1000).unref();

  constructor(
    private readonly config: AppConfig,
    private readonly store: RateLimitStore,
  ) {}

  readonly middleware = (req: Request, res: Response, next: NextFunction): void => {
    const limit = this.config.rateLimit.authFailuresPerMinute;
    // Health checks come from the platform, never with credentials: a block must not fail them.
    if (limit <= 0 || req.path.startsWith('/health/')) return next();
    const ip = req.ip ?? 'unknown';
    const until = this.blocked.get(ip);
    if (until !== undefined && until > Date.now()) return next(Problem.rateLimited(Math.ceil((until - Date.now()) / 1000)));
    res.once('finish', () => {
      if (res.statusCode === 401 || res.statusCode === 403) void this.failed(ip, limit);
    });
    next();
  };

  private async failed(ip: string, limit: number): Promise<void> {
    const hit = await this.store.hit(`auth-failed:ip:${ip}`, WINDOW_SECONDS);
    if (hit.count < limit) return;
    if (this.blocked.size >= MAX_BLOCKED) this.blocked.delete(this.blocked.keys().next().value!);
    this.blocked.set(ip, Date.now() + hit.resetSeconds * 1000);
  }

  private sweep(): void {
    const now = Date.now();
    for (const [ip, until] of this.blocked) if (until <= now) this.blocked.delete(ip);
  }

  onModuleDestroy(): void {
    clearInterval(this.sweeper);
  }
}
