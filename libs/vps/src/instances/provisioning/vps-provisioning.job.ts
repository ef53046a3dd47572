import { setTimeout as sleep } from 'node:timers/promises';
import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { AppConfig, backoff, holdLease, JobQueue, Problem } from '@app/core';
import { ComputeProvider, ComputeProviderError, InstanceRef, MachineSpec } from '../../compute/compute-provider';
import { VpsHostKeys } from '../../host-keys/vps-host-keys';
import { ProvisioningOutcome } from './provisioning-outcome';
import { ProvisioningWork, VpsProvisioningRepository } from './vps-provisioning.repository';

export const PROVISION_JOB = 'vps-provision';
/** Held while one process works on a provisioning, renewed while a step runs; a crashed holder's runs out. */
export const PROVISION_LEASE_SECONDS = 30;
/** First retry after a failed attempt; doubles each time (pg-boss's backoff, and the waiting CLI's). */
const RETRY_DELAY_SECONDS = 5;
const MAX_RETRY_DELAY_MS = 60_000;

export type ProvisionRun = 'finished' | 'busy';

/**
 * Makes a VPS's machine as a durable job: queued in the transaction that wrote the VPS,
 * retried with backoff while the hypervisor fails or cannot be reached (COMPUTE_RETRY_ATTEMPTS
 * tries), resumed by another process when the one working on it dies (see ProvisioningResumeJob).
 * The adapter's steps look before they act, so a repeat adopts what an earlier try made. When it
 * gives up, whatever was made is removed and the VPS shows `error`.
 */
@Injectable()
export class VpsProvisioningJob implements OnModuleInit {
  private readonly logger = new Logger('Provisioning');

  constructor(
    private readonly provisioning: VpsProvisioningRepository,
    private readonly compute: ComputeProvider,
    private readonly jobs: JobQueue,
    private readonly config: AppConfig,
    private readonly outcome: ProvisioningOutcome,
    private readonly hostKeys: VpsHostKeys,
  ) {}

  onModuleInit(): void {
    this.jobs.work<{ serviceId: string }>(PROVISION_JOB, async (job) => void (await this.run(job.serviceId)));
  }

  /** In the transaction that wrote the VPS; `startAfterSeconds` leaves it to a waiting caller first. */
  async enqueue(manager: EntityManager | undefined, serviceId: string, startAfterSeconds?: number): Promise<void> {
    await this.jobs.send(
      PROVISION_JOB,
      { serviceId },
      { retryLimit: this.config.computeRetryAttempts + 2, retryDelaySeconds: RETRY_DELAY_SECONDS, retryBackoff: true, startAfterSeconds },
      manager,
    );
  }

  /**
   * One attempt, if no other process holds the provisioning. Throws when it failed and will be
   * tried again (the queue retries the job with backoff).
   */
  async run(serviceId: string): Promise<ProvisionRun> {
    const held = await holdLease(this.provisioning, serviceId, PROVISION_LEASE_SECONDS, (work) => this.attempt(work));
    if (held.taken) return 'finished';
    return (await this.provisioning.states([serviceId])).get(serviceId)?.status === 'running' ? 'busy' : 'finished';
  }

  /**
   * Drives provisionings to their end in this process (the operator's command waits for them), with
   * the same backoff as the queue; one another process holds is waited for.
   */
  async runToEnd(serviceIds: string[]): Promise<void> {
    for (const id of serviceIds) {
      for (let failures = 0; ;) {
        const result = await this.run(id).catch(() => 'retry' as const);
        if (result === 'finished') break;
        if (result === 'retry') failures++;
        await sleep(result === 'busy' ? 1000 : backoff(failures, { base: RETRY_DELAY_SECONDS * 1000, max: MAX_RETRY_DELAY_MS }));
      }
    }
  }

  /** Under the lease: a failure worth another try throws (the lease is given back with its error); the last gives up. */
  private async attempt(work: ProvisioningWork): Promise<void> {
    const ref: InstanceRef = { serviceId: work.serviceId, providerRef: null, region: work.region, host: work.host };
    try {
      const machine = await this.compute.createMachine(ref, await this.withHostKeys(work.serviceId, work.spec));
      if (!(await this.outcome.succeeded(work, machine))) await this.remove(ref, 'its service was terminated while it was made');
    } catch (err) {
      if (retryable(err) && work.attempts < this.config.computeRetryAttempts) {
        this.logger.warn(`Provisioning ${work.serviceId}, attempt ${work.attempts}: ${(err as Error).message}; retried`);
        throw err;
      }
      await this.giveUp(work, ref, err);
    }
  }

  /** The host keys go into the seed only now: the recorded spec never holds a private key. */
  private async withHostKeys(serviceId: string, spec: MachineSpec): Promise<MachineSpec> {
    if (!spec.boot) return spec;
    return { ...spec, boot: { ...spec.boot, seed: { ...spec.boot.seed, hostKeys: await this.hostKeys.forSeed(serviceId, 'vps') } } };
  }

  private async giveUp(work: ProvisioningWork, ref: InstanceRef, err: unknown): Promise<void> {
    this.logger.error(`Provisioning ${work.serviceId} failed for good after ${work.attempts} attempts: ${(err as Error).message}`);
    await this.remove(ref, 'its provisioning failed');
    await this.outcome.failed(work, errorOf(err));
  }

  /** What an attempt made goes again; if the hypervisor cannot do it now, reconciliation removes it after the grace period. */
  private async remove(ref: InstanceRef, why: string): Promise<void> {
    await this.compute
      .destroyMachine(ref)
      .catch((err: Error) => this.logger.warn(`Machine of ${ref.serviceId} (${why}) not removed yet: ${err.message}; reconciliation will`));
  }
}

/** A hypervisor that cannot answer now, or anything unexpected (the database), is worth another try; a refusal is not. */
function retryable(err: unknown): boolean {
  if (err instanceof ComputeProviderError) return err.retryable;
  return !(err instanceof Problem);
}

function errorOf(err: unknown): { code: string; message: string; detail?: string } {
  if (err instanceof ComputeProviderError) return { code: err.code, message: err.message, detail: err.operatorDetail };
  if (err instanceof Problem) return { code: err.code, message: err.detail };
  return { code: 'internal_error', message: 'The machine could not be made.' };
}
