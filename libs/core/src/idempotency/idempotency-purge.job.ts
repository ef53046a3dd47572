import { Injectable, OnModuleInit } from '@nestjs/common';
import { JobQueue } from '../jobs/job-queue';
import { IdempotencyStore } from './idempotency.store';

/** Hourly, on one replica: kept responses past their 24 hours go. */
@Injectable()
export class IdempotencyPurgeJob implements OnModuleInit {
  constructor(
    private readonly store: IdempotencyStore,
    private readonly jobs: JobQueue,
  ) {}

  onModuleInit(): void {
    this.jobs.every('idempotency-purge', 3600, async () => void (await this.store.purgeExpired()));
  }
}
