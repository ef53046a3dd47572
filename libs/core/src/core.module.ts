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
import { MemoryRateLimitStore } from './rate-limit/memory-rate-limit.store';
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
      // nodemailer and ioredis load only where they are used (their memory is every replica's otherwise).
      useFactory: async (config: AppConfig): Promise<Mailer> => {
        if (!config.mail.smtpUrl) return new OutboxMailer(join(config.dataDir, 'outbox'), config.mail.from);
        const { SmtpMailer } = await import('./mail/smtp-mailer');
        return new SmtpMailer(config.mail.smtpUrl, config.mail.from);
      },
    },
    {
      provide: RateLimitStore,
      inject: [AppConfig],
      useFactory: async (config: AppConfig): Promise<RateLimitStore> => {
        if (!config.redisUrl) return new MemoryRateLimitStore();
        const { RedisRateLimitStore } = await import('./rate-limit/redis-rate-limit.store');
        return new RedisRateLimitStore(config.redisUrl);
      },
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
