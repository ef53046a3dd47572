import { setTimeout as sleep } from 'node:timers/promises';
import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { AppConfig, backoff, holdLease, JobQueue } from '@app/core';
import { BackupStore } from '../../backups/backup-store';
import { ComputeProvider, ComputeProviderError, InstanceRef, instanceRef } from '../../compute/compute-provider';
import { MachineRelocator, RecreatedMachine } from '../../compute/machine-relocator';
import { MachineState, VpsInstancesRepository } from '../../instances/vps-instances.repository';
import { RelocatedVpsRepository } from './relocated-vps.repository';
import { failureOf, RelocationRefused, retryable } from './relocation-error';
import { Failure, RelocationOutcome } from './relocation-outcome';
import { RelocationWork, VpsRelocationsRepository } from './vps-relocations.repository';

export const RELOCATION_JOB = 'vps-relocation';
/** Held while one process works on a relocation, renewed every third of it while a step (a disk's copy) runs. */
const LEASE_SECONDS = 60;
const RETRY_DELAY_SECONDS = 5;
const MAX_RETRY_DELAY_MS = 60_000;
const RESUME_PERIOD_SECONDS = 15;
/** A running relocation without a lease and without an attempt this long has lost its job. */
const IDLE_SECONDS = 600;

/**
 * A relocation of a VPS to another host as a durable job: queued in the transaction that held
 * the room, run under the record's lease, retried with backoff (COMPUTE_RETRY_ATTEMPTS tries; a
 * RelocationRefused is not tried again) and resumed by another process when the one working on it
 * died (a periodic scan re-queues one whose lease ran out). Every step looks before it acts, so a
 * resumed relocation goes on where the last one stopped (a machine made again starts from nothing on
 * the new host). Once its tries are spent it is rolled back where the machine verifiably is.
 */
@Injectable()
export class RelocationJob implements OnModuleInit {
  private readonly logger = new Logger('Relocations');

  constructor(
    private readonly relocations: VpsRelocationsRepository,
    private readonly vps: RelocatedVpsRepository,
    private readonly instances: VpsInstancesRepository,
    private readonly compute: ComputeProvider,
    private readonly relocator: MachineRelocator,
    private readonly store: BackupStore,
    private readonly outcome: RelocationOutcome,
    private readonly jobs: JobQueue,
    private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    this.jobs.work<{ relocationId: string }>(RELOCATION_JOB, async (job) => void (await this.run(job.relocationId)));
    this.jobs.every('vps-relocation-resume', RESUME_PERIOD_SECONDS, async () => void (await this.resume()));
  }

  async enqueue(manager: EntityManager | undefined, relocationId: string): Promise<void> {
    const retryLimit = this.config.computeRetryAttempts + 4;
    const options = { retryLimit, retryDelaySeconds: RETRY_DELAY_SECONDS, retryBackoff: true };
    await this.jobs.send(RELOCATION_JOB, { relocationId }, options, manager);
  }

  /** One attempt, if no other process holds the relocation: 'busy' while another does. Throws when it will be tried again. */
  async run(relocationId: string): Promise<'finished' | 'busy'> {
    const held = await holdLease(this.relocations, relocationId, LEASE_SECONDS, (work) => this.attempt(work));
    if (held.taken) return 'finished';
    return (await this.relocations.find(relocationId))?.status === 'running' ? 'busy' : 'finished';
  }

  /** Drives a relocation to its end in this process (the operator's command waits for it), with the queue's backoff. */
  async runToEnd(relocationId: string): Promise<void> {
    for (let failures = 0; ;) {
      const result = await this.run(relocationId).catch(() => 'retry' as const);
      if (result === 'finished') return;
      if (result === 'retry') failures++;
      await sleep(result === 'busy' ? 1000 : backoff(failures, { base: RETRY_DELAY_SECONDS * 1000, max: MAX_RETRY_DELAY_MS }));
    }
  }

  /** Re-queues the relocations no process works on; returns their ids. */
  async resume(): Promise<string[]> {
    const ids = await this.relocations.takeAbandoned(IDLE_SECONDS);
    for (const id of ids) await this.enqueue(undefined, id);
    if (ids.length) this.logger.warn(`Resumed ${ids.length} relocation(s) no process was working on`);
    return ids;
  }

  private async attempt(work: RelocationWork): Promise<void> {
    const machine = await this.instances.machineOf(work.serviceId);
    const settled = machine?.host?.id === work.toHostId;
    if (!machine || work.serviceStatus === 'terminated') return this.outcome.abandoned(work, settled);
    if (work.attempts > this.config.computeRetryAttempts) return this.giveUp(work, machine, { message: work.lastError });
    try {
      await (work.source === 'copy' ? this.copy(work, machine, settled) : this.recreate(work, machine));
    } catch (err) {
      if (retryable(err) && work.attempts < this.config.computeRetryAttempts) {
        this.logger.warn(`Relocation of ${work.serviceId} to ${work.toHost}, attempt ${work.attempts}: ${(err as Error).message}; retried`);
        throw err;
      }
      const failure = failureOf(err, work.source === 'copy' ? 'move_failed' : 'evacuation_failed');
      await this.giveUp(work, (await this.instances.machineOf(work.serviceId)) ?? machine, failure);
    }
  }

  private async copy(work: RelocationWork, machine: MachineState, settled: boolean): Promise<void> {
    if (work.live) return this.migrate(work, machine, settled);
    let ref = instanceRef(work.serviceId, machine);
    if (!settled) {
      const to = await this.target(work);
      if (work.wasRunning) await this.power(ref, 'stop', `move-${work.id}-stop`);
      await this.relocator.copy(ref, { ...to, sshPort: work.toSshPort });
      await this.outcome.settle(work);
      ref = instanceRef(work.serviceId, (await this.instances.machineOf(work.serviceId))!);
    }
    if (work.wasRunning) await this.power(ref, 'start', `move-${work.id}-start`);
    await this.outcome.succeeded(work);
  }

  /** Live: the machine runs throughout; a failed migration is not tried again (it leaves the machine running on the old host). */
  private async migrate(work: RelocationWork, machine: MachineState, settled: boolean): Promise<void> {
    if (!settled) {
      const to = await this.target(work);
      const timeoutMs = this.config.hosts.migrationTimeoutSeconds * 1000;
      const moved = await this.relocator.migrate(instanceRef(work.serviceId, machine), { ...to, sshPort: work.toSshPort }, timeoutMs);
      await this.relocations.recordDowntime(work.id, moved.downtimeMs);
      await this.outcome.settle(work);
    }
    await this.outcome.succeeded(work);
  }

  /** Made again on the new host, nothing asked of the old one; each try starts there from nothing. */
  private async recreate(work: RelocationWork, machine: MachineState): Promise<void> {
    const to = await this.target(work);
    await this.relocator.recreate({ ...instanceRef(work.serviceId, machine), name: work.serviceName, host: to }, this.recreated(work));
    await this.outcome.recreated(work);
  }

  private recreated(work: RelocationWork): RecreatedMachine {
    const { disk, network, powerState } = work.plan!;
    const base = { vcpus: work.need.vcpus, memoryMb: work.need.memoryMb, network, powerOn: powerState === 'running' };
    if (disk.from === 'disk') return { ...base, disk };
    if (disk.from === 'image') return { ...base, disk: { from: 'image', boot: disk.boot } };
    const { key, sizeBytes } = disk.backup;
    const open = () => this.store.get(key).catch((err: Error) => Promise.reject(new RelocationRefused('backup_unavailable', err.message)));
    return { ...base, disk: { from: 'backup', open, sizeBytes, seed: disk.seed } };
  }

  private async target(work: RelocationWork) {
    const to = await this.vps.target(work.toHostId);
    if (!to) throw new RelocationRefused('not_found', `Host ${work.toHost} was removed.`);
    return to;
  }

  /**
   * Tries are spent (or a step was refused): the VPS ends where its machine verifiably is. A copy's
   * host that cannot answer throws, and the copy is looked at again later: never undefined on both.
   * What a machine made again left on the new host goes; the VPS stays recorded on the dead host.
   */
  private async giveUp(work: RelocationWork, machine: MachineState, error: Failure): Promise<void> {
    this.logger.error(`Relocation of ${work.serviceId} to ${work.toHost} gives up after ${work.attempts} attempt(s): ${error.message}`);
    const ref = instanceRef(work.serviceId, machine);
    const to = await this.vps.target(work.toHostId);
    if (work.source !== 'copy') {
      // From its current disk: only the new host's domain goes, the disk is the VPS's own.
      const remove = (r: InstanceRef) => (work.source === 'disk' ? this.relocator.removeStale(r) : this.compute.destroyMachine(r));
      if (to) await remove({ ...ref, host: to }).catch((e: Error) => this.logger.warn(`Left on ${to.name}: ${e.message}`));
      return this.outcome.rolledBack(work, error);
    }
    if (machine.host?.id === work.toHostId) return this.outcome.stoppedThere(work, error);
    if (!to) return this.outcome.rolledBack(work, error);
    const place = await this.relocator.locate(ref, to);
    if (place.onOld) {
      if (place.onNew) await this.relocator.discard(ref, to);
      return this.outcome.rolledBack(work, error);
    }
    if (place.onNew) {
      await this.outcome.settle(work);
      return this.outcome.stoppedThere(work, error);
    }
    return this.outcome.rolledBack(work, { ...error, message: `${error.message ?? 'failed'}; the machine is on neither host` });
  }

  /** A power action of the compute port, waited for (the stop's timeout and power-off are the provider's own). */
  private async power(ref: InstanceRef, operation: 'start' | 'stop', key: string): Promise<void> {
    const task = await this.compute.powerAction(ref, operation, key);
    for (;;) {
      const status = await this.compute.taskStatus(ref, task);
      if (status.state === 'succeeded') return;
      if (status.state === 'failed') throw new ComputeProviderError(status.error.code, status.error.message, true);
      if (this.jobs.stopping) throw new ComputeProviderError('shutting_down', 'The process is stopping; the move is resumed.', true);
      await this.jobs.delay(this.compute.pollIntervalMs(operation));
    }
  }
}
