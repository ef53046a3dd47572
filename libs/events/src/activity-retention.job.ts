import { Injectable, OnModuleInit } from '@nestjs/common';
import { AppConfig, JobQueue, purgeInBatches } from '@app/core';
import { ActivityRepository, PURGE_BATCH } from './activity.repository';

/** Hourly, on one replica: entries older than EVENTS_RETENTION_DAYS go, in batches. */
@Injectable()
export class ActivityRetentionJob implements OnModuleInit {
  constructor(
    private readonly repository: ActivityRepository,
    private readonly config: AppConfig,
    private readonly jobs: JobQueue,
  ) {}

  onModuleInit(): void {
    this.jobs.every('activity-retention', 3600, async () => void (await this.purge()));
  }

  /** How many entries were deleted. */
  async purge(now = new Date()): Promise<number> {
    const before = new Date(now.getTime() - this.config.eventsRetentionDays * 86_400_000);
    return purgeInBatches(() => this.repository.purgeBatch(before), PURGE_BATCH);
  }
}
