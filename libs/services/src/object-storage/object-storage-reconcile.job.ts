import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { Interval } from '@nestjs/schedule';
import { AppConfig, JobLock } from '@app/core';
import { ObjectStorageSync } from './object-storage-sync';
import { ObjectStorageUsage } from './object-storage-usage';
import { ObjectStorageUsersRepository } from './object-storage-users.repository';

const TICK_MS = 60_000;
/** A change no process has worked on for this long gets a new job (its jobs ran out of retries, or a process died holding it). */
const IDLE_SECONDS = 120;
const USAGE_BATCH = 50;

/** One replica a minute: re-queues what the gateway has not caught up with, and refreshes stale usage. Only the API server runs it. */
@Injectable()
export class ObjectStorageScheduler implements OnApplicationBootstrap {
  private readonly logger = new Logger('ObjectStorage');
  private active = false;

  constructor(
    private readonly users: ObjectStorageUsersRepository,
    private readonly sync: ObjectStorageSync,
    private readonly usage: ObjectStorageUsage,
    private readonly lock: JobLock,
    private readonly config: AppConfig,
    private readonly adapterHost: HttpAdapterHost,
  ) {}

  onApplicationBootstrap(): void {
    this.active = Boolean(this.adapterHost.httpAdapter);
  }

  @Interval('object-storage-reconcile', TICK_MS)
  async tick(): Promise<void> {
    if (!this.active) return;
    await this.lock.runExclusive('object-storage-reconcile', async () => {
      for (const id of await this.users.unsettled(IDLE_SECONDS)) await this.sync.enqueue(undefined, id);
      for (const id of await this.users.staleUsage(this.config.objectStorage.usageRefreshSeconds, USAGE_BATCH)) {
        await this.usage
          .refresh(id, this.config.objectStorage.usageRefreshSeconds)
          .catch((err: Error) => this.logger.warn(`Usage of ${id}: ${err.message}`));
      }
    });
  }
}
