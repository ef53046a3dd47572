import { Global, Module, OnApplicationShutdown } from '@nestjs/common';
import { AppConfig } from './config/app-config';
import { SecretBox } from './crypto/secret-box';
import { UrlSigner } from './crypto/url-signer';
import { JobLock } from './database/job-lock';
import { TransactionRunner } from './database/transaction';
import { IdempotencyStore } from './idempotency/idempotency.store';
import { MemoryRateLimitStore } from './rate-limit/memory-rate-limit.store';
import { RedisRateLimitStore } from './rate-limit/redis-rate-limit.store';
import { RateLimitStore } from './rate-limit/rate-limit.store';

@Global()
@Module({
  providers: [
    TransactionRunner,
    SecretBox,
    UrlSigner,
    IdempotencyStore,
    JobLock,
    {
      provide: RateLimitStore,
      inject: [AppConfig],
      useFactory: (config: AppConfig) => (config.redisUrl ? new RedisRateLimitStore(config.redisUrl) : new MemoryRateLimitStore()),
    },
  ],
  exports: [TransactionRunner, SecretBox, UrlSigner, RateLimitStore, IdempotencyStore, JobLock],
})
export class CoreModule implements OnApplicationShutdown {
  constructor(private readonly rateLimits: RateLimitStore) {}

  async onApplicationShutdown(): Promise<void> {
    await this.rateLimits.close();
  }
}
