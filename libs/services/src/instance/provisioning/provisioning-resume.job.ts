import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { Interval } from '@nestjs/schedule';
import { JobLock } from '@app/core';
import { VpsProvisioningJob } from './vps-provisioning.job';
import { VpsProvisioningRepository } from './vps-provisioning.repository';

const TICK_MS = 15_000;
/** A provisioning without a lease and without an attempt this long has lost its job (or its retries ran out). */
const IDLE_SECONDS = 600;

/**
 * One replica at a time re-queues provisionings nobody works on: after a crash of the process that
 * held one (its lease runs out), or when its job was lost. Only the API server runs it; the jobs
 * themselves then run on any replica.
 */
@Injectable()
export class ProvisioningScheduler implements OnApplicationBootstrap {
  private readonly logger = new Logger('Provisioning');
  private active = false;

  constructor(
    private readonly provisioning: VpsProvisioningRepository,
    private readonly job: VpsProvisioningJob,
    private readonly lock: JobLock,
    private readonly adapterHost: HttpAdapterHost,
  ) {}

  onApplicationBootstrap(): void {
    this.active = Boolean(this.adapterHost.httpAdapter);
  }

  @Interval('vps-provisioning-resume', TICK_MS)
  async tick(): Promise<void> {
    if (!this.active) return;
    await this.lock.runExclusive('vps-provisioning-resume', async () => void (await this.resume()));
  }

  /** Returns the ids re-queued. */
  async resume(): Promise<string[]> {
    const ids = await this.provisioning.takeAbandoned(IDLE_SECONDS);
    for (const id of ids) await this.job.enqueue(undefined, id);
    if (ids.length) this.logger.warn(`Resumed ${ids.length} provisioning(s) no process was working on`);
    return ids;
  }
}
