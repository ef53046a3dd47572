import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { AppConfig, JobQueue } from '@app/core';
import { ObjectStorageSync } from './object-storage-sync';
import { ObjectStorageUsage } from './object-storage-usage';
import { ObjectStorageUsersRepository } from './object-storage-users.repository';

const PERIOD_SECONDS = 60;
/** A change no process has worked on for this long gets a new job (its jobs ran out of retries, or a process died holding it). */
const IDLE_SECONDS = 120;
const USAGE_BATCH = 50;

/** Once a minute, on one replica: re-queues what the gateway has not caught up with, and refreshes stale usage. */
@Injectable()
export class ObjectStorageReconcileJob implements OnModuleInit {
  private readonly logger = new Logger('ObjectStorage');

  constructor(
    private readonly users: ObjectStorageUsersRepository,
    private readonly sync: ObjectStorageSync,
    private readonly usage: ObjectStorageUsage,
    private readonly jobs: JobQueue,
    private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    this.jobs.every('object-storage-reconcile', PERIOD_SECONDS, () => this.reconcile());
  }

  async reconcile(): Promise<void> {
    for (const id of await this.users.unsettled(IDLE_SECONDS)) await this.sync.enqueue(undefined, id);
    for (const id of await this.users.staleUsage(this.config.objectStorage.usageRefreshSeconds, USAGE_BATCH)) {
      await this.usage
        .refresh(id, this.config.objectStorage.usageRefreshSeconds)
        .catch((err: Error) => this.logger.warn(`Usage of ${id}: ${err.message}`));
    }
  }
}
