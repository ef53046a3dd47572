import { Global, Module, OnApplicationShutdown } from '@nestjs/common';
import { ActivityThrottle } from './activity/activity-throttle';
import { AppConfig } from './config/app-config';
import { SecretBox } from './crypto/secret-box';
import { UrlSigner } from './crypto/url-signer';
import { TransactionRunner } from './database/transaction';
import { join } from 'node:path';
import { IdempotencyPurgeJob } from './idempotency/idempotency-purge.job';
import { IdempotencyStore } from './idempotency/idempotency.store';
import { AuthFailureLimiter } from './rate-limit/auth-failure-limiter';
import { JobQueue } from './jobs/job-queue';
import { PgBossJobQueue } from './jobs/pg-boss-job-queue';
import { Mailer } from './mail/mailer';
import { OutboundMail } from './mail/outbound-mail';
import { OutboxMailer } from './mail/outbox-mailer';
import { SmtpMailer } from './mail/smtp-mailer';
import { MemoryRateLimitStore } from './rate-limit/memory-rate-limit.store';
import { RedisRateLimitStore } from './rate-limit/redis-rate-limit.store';
import { RateLimitStore } from './rate-limit/rate-limit.store';
import { PasswordFailures } from './rate-limit/password-failures';

@Global()
@Module({
  providers: [
    TransactionRunner,
    SecretBox,
    UrlSigner,
    IdempotencyStore,
    IdempotencyPurgeJob,
    AuthFailureLimiter,
    PasswordFailures,
    ActivityThrottle,
    OutboundMail,
    { provide: JobQueue, useClass: PgBossJobQueue },
    {
      provide: Mailer,
      inject: [AppConfig],
      useFactory: (config: AppConfig) =>
        config.mail.smtpUrl
          ? new SmtpMailer(config.mail.smtpUrl, config.mail.from)
          : new OutboxMailer(join(config.dataDir, 'outbox'), config.mail.from),
    },
    {
      provide: RateLimitStore,
      inject: [AppConfig],
      useFactory: (config: AppConfig) => (config.redisUrl ? new RedisRateLimitStore(config.redisUrl) : new MemoryRateLimitStore()),
    },
  ],
  exports: [
    TransactionRunner,
    SecretBox,
    UrlSigner,
    RateLimitStore,
    IdempotencyStore,
    AuthFailureLimiter,
    PasswordFailures,
    ActivityThrottle,
    JobQueue,
    Mailer,
    OutboundMail,
  ],
})
export class CoreModule implements OnApplicationShutdown {
  constructor(private readonly rateLimits: RateLimitStore) {}

  async onApplicationShutdown(): Promise<void> {
    await this.rateLimits.close();
  }
}
