import { Logger } from '@nestjs/common';
import Redis from 'ioredis';
import { RateLimitStore, WindowHit } from './rate-limit.store';

// INCR and set the window's expiry on the first hit, atomically; returns [count, ms left].
const HIT = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]); ttl = tonumber(ARGV[1]) end
return {count, ttl}`;

// DECR only a window that is still open and counted: never a negative count, never a key without expiry.
const RELEASE = `
local count = tonumber(redis.call('GET', KEYS[1]) or '0')
if count > 0 and redis.call('PTTL', KEYS[1]) > 0 then redis.call('DECR', KEYS[1]) end
return 0`;

/**
 * Fixed windows in Redis, exact across API processes. If Redis is unreachable the request is let
 * through (logged): a limiter outage must not take the API down with it.
 */
export class RedisRateLimitStore extends RateLimitStore {
  private readonly logger = new Logger('RateLimit');
  private readonly redis: Redis;
  private lastWarning = 0;

  constructor(url: string) {
    super();
    this.redis = new Redis(url, { lazyConnect: false, maxRetriesPerRequest: 1, enableOfflineQueue: false, connectTimeout: 2000 });
    this.redis.on('error', (err) => this.warn(err));
  }

  async hit(key: string, windowSeconds: number): Promise<WindowHit> {
    try {
      const [count, ttl] = (await this.redis.eval(HIT, 1, `rl:${key}`, windowSeconds * 1000)) as [number, number];
      return { count, resetSeconds: Math.max(1, Math.ceil(ttl / 1000)) };
    } catch (err) {
      this.warn(err as Error);
      return { count: 0, resetSeconds: windowSeconds };
    }
  }

  async peek(key: string, windowSeconds: number): Promise<WindowHit> {
    try {
      const [count, ttl] = await Promise.all([this.redis.get(`rl:${key}`), this.redis.pttl(`rl:${key}`)]);
      if (count === null || ttl < 0) return { count: 0, resetSeconds: windowSeconds };
      return { count: Number(count), resetSeconds: Math.max(1, Math.ceil(ttl / 1000)) };
    } catch (err) {
      this.warn(err as Error);
      return { count: 0, resetSeconds: windowSeconds };
    }
  }

  async release(key: string): Promise<void> {
    try {
      await this.redis.eval(RELEASE, 1, `rl:${key}`);
    } catch (err) {
      this.warn(err as Error);
    }
  }

  private warn(err: Error): void {
    if (Date.now() - this.lastWarning < 10_000) return;
    this.lastWarning = Date.now();
    this.logger.warn(`Redis unavailable, rate limits not enforced: ${err.message}`);
  }

  override async close(): Promise<void> {
    this.redis.disconnect();
  }
}
