import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { JobQueue } from '@app/core';
import { VpsProvisioningJob } from './vps-provisioning.job';
import { VpsProvisioningRepository } from './vps-provisioning.repository';

const PERIOD_SECONDS = 15;
/** A provisioning without a lease and without an attempt this long has lost its job (or its retries ran out). */
const IDLE_SECONDS = 600;

/**
 * Every 15 s, on one replica: re-queues provisionings nobody works on, after a crash of the process
 * that held one (its lease runs out), or when its job was lost. The jobs themselves then run on any
 * replica.
 */
@Injectable()
export class ProvisioningResumeJob implements OnModuleInit {
  private readonly logger = new Logger('Provisioning');

  constructor(
    private readonly provisioning: VpsProvisioningRepository,
    private readonly job: VpsProvisioningJob,
    private readonly jobs: JobQueue,
  ) {}

  onModuleInit(): void {
    this.jobs.every('vps-provisioning-resume', PERIOD_SECONDS, async () => void (await this.resume()));
  }

  /** Returns the ids re-queued. */
  async resume(): Promise<string[]> {
    const ids = await this.provisioning.takeAbandoned(IDLE_SECONDS);
    for (const id of ids) await this.job.enqueue(undefined, id);
    if (ids.length) this.logger.warn(`Resumed ${ids.length} provisioning(s) no process was working on`);
    return ids;
  }
}
