import { Injectable, OnModuleInit } from '@nestjs/common';
import { AppConfig, JobQueue, purgeInBatches } from '@app/core';
import { DeliveriesRepository, PURGE_BATCH } from './deliveries.repository';

/**
 * Hourly, on one replica: finished deliveries whose last attempt is older than EVENTS_RETENTION_DAYS
 * go, their attempts with them (ON DELETE CASCADE). A delivery carries an activity entry; it is not
 * kept longer than the log keeps the entry.
 */
@Injectable()
export class DeliveriesRetentionJob implements OnModuleInit {
  constructor(
    private readonly deliveries: DeliveriesRepository,
    private readonly config: AppConfig,
    private readonly jobs: JobQueue,
  ) {}

  onModuleInit(): void {
    this.jobs.every('webhook-deliveries-retention', 3600, async () => void (await this.purge()));
  }

  /** How many deliveries were deleted. */
  async purge(now = new Date()): Promise<number> {
    const before = new Date(now.getTime() - this.config.eventsRetentionDays * 86_400_000);
    return purgeInBatches(() => this.deliveries.purgeBatch(before), PURGE_BATCH);
  }
}
