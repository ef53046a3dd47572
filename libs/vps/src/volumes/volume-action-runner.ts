import { Injectable, Logger } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { JobQueue, TransactionRunner } from '@app/core';
import { ServiceProvisioner } from '@app/services';
import { ComputeProvider, ComputeProviderError, instanceRef } from '../compute/compute-provider';
import { GIB, VolumeBackend, VolumeRef } from '../compute/volumes/volume-backend';
import { VpsInstancesRepository } from '../instances/vps-instances.repository';
import { VolumeActionRow, VolumeRow, VolumesRepository } from './volumes.repository';

/** Tries of a step whose backend or hypervisor does not answer, 2 s apart and doubling (about a minute in all). */
const ATTEMPTS = 6;

/** How a failed action ended (`detail`: what the backend or hypervisor said, for operators); null: it succeeded. */
type Outcome = { code: string; message: string; detail?: string } | null;

/**
 * Drives one volume action to its end: the bytes (VolumeBackend: made if missing, grown) and the
 * machine (ComputeProvider: hot-plug, unplug, the new size told to the guest), each step looking
 * before it acts, so a second run after a crash converges. A backend or hypervisor that does not
 * answer is tried again for about a minute; then, or on a refusal, the action fails and the volume
 * goes back to the state it had before.
 */
@Injectable()
export class VolumeActionRunner {
  private readonly logger = new Logger('Volumes');
  private readonly driving = new Set<string>();

  constructor(
    private readonly volumes: VolumesRepository,
    private readonly backend: VolumeBackend,
    private readonly compute: ComputeProvider,
    private readonly instances: VpsInstancesRepository,
    private readonly provisioner: ServiceProvisioner,
    private readonly tx: TransactionRunner,
    private readonly jobs: JobQueue,
  ) {}

  drives(actionId: string): boolean {
    return this.driving.has(actionId);
  }

  async drive(actionId: string): Promise<void> {
    if (this.driving.has(actionId)) return;
    this.driving.add(actionId);
    try {
      const action = await this.volumes.action(actionId);
      const volume = action?.status === 'running' ? await this.volumes.find(action.serviceId) : null;
      if (!action || !volume) return;
      await this.finish(action, await this.attempt(action, volume));
    } finally {
      this.driving.delete(actionId);
    }
  }

  private async attempt(action: VolumeActionRow, volume: VolumeRow): Promise<Outcome> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.step(action, volume);
        return null;
      } catch (err) {
        const retryable = err instanceof ComputeProviderError && err.retryable;
        this.logger.warn(`Volume ${action.type} ${action.id} of ${volume.id}, try ${attempt}: ${(err as Error).message}`);
        // A shutdown hands the job back (another process goes on); the action stays running.
        if (retryable && this.jobs.stopping) throw err;
        if (retryable && attempt < ATTEMPTS) {
          const waitMs = 2000 * 2 ** (attempt - 1);
          await this.stepOf(action)(0, `no answer; trying again in ${waitMs / 1000} s`);
          await this.jobs.delay(waitMs);
          continue;
        }
        if (err instanceof ComputeProviderError)
          return { code: err.retryable ? 'unavailable' : err.code, message: err.message, detail: err.operatorDetail };
        return { code: 'failed', message: (err as Error).message };
      }
    }
  }

  private async step(action: VolumeActionRow, volume: VolumeRow): Promise<void> {
    const ref: VolumeRef = { volumeId: volume.id, region: volume.region };
    const step = this.stepOf(action);
    if (action.type === 'attach') {
      await step(10, 'making sure the volume exists in the storage backend');
      if (!(await this.backend.exists(ref))) await this.backend.create(ref, volume.sizeGb);
      const vps = await this.machineOf(action.targetServiceId);
      await step(50, 'attaching the volume to the VPS');
      if (vps) await this.compute.attachVolume(vps, volume.id, this.backend.diskSource(ref));
    } else if (action.type === 'detach') {
      const vps = await this.machineOf(action.targetServiceId);
      await step(10, 'detaching the volume from the VPS');
      if (vps) await this.compute.detachVolume(vps, volume.id);
    } else {
      const sizeGb = action.sizeGb!;
      await step(10, `growing the volume to ${sizeGb} GiB in the storage backend`);
      if (await this.backend.exists(ref)) await this.backend.resize(ref, sizeGb);
      else await this.backend.create(ref, sizeGb);
      const vps = await this.machineOf(volume.attachedTo);
      await step(60, 'telling the VPS of the new size');
      if (vps) await this.compute.resizeVolume(vps, volume.id, sizeGb * GIB);
    }
  }

  /** Records the step the action reached; one that cannot be written is not worth failing the action for. */
  private stepOf(action: VolumeActionRow): (progress: number, step: string) => Promise<void> {
    return (progress, step) =>
      this.volumes
        .setStep(action.id, progress, step)
        .catch((err: Error) => this.logger.warn(`Volume ${action.type} ${action.id}: step not recorded (${err.message})`));
  }

  private async machineOf(vpsId: string | null) {
    const machine = vpsId ? await this.instances.machineOf(vpsId) : null;
    return vpsId && machine ? instanceRef(vpsId, machine) : null;
  }

  /** Records the end once, with the volume where it now is: the new place or size, or back where it was. */
  private async finish(action: VolumeActionRow, failure: Outcome): Promise<void> {
    await this.tx.run(async (m) => {
      const volume = await this.volumes.lock(m, action.serviceId);
      if (!volume || !(await this.volumes.finishAction(m, action.id, failure))) return;
      await this.settle(m, action, volume, failure === null);
    });
  }

  private async settle(m: EntityManager, action: VolumeActionRow, volume: VolumeRow, succeeded: boolean): Promise<void> {
    const id = action.serviceId;
    if (action.type === 'attach') {
      return this.volumes.update(m, id, succeeded ? { state: 'attached' } : { state: 'detached', attachedTo: null });
    }
    if (action.type === 'detach') {
      return this.volumes.update(m, id, succeeded ? { state: 'detached', attachedTo: null } : { state: 'attached' });
    }
    const state = volume.attachedTo ? 'attached' : 'detached';
    if (!succeeded) return this.volumes.update(m, id, { state });
    await this.volumes.update(m, id, { state, sizeGb: action.sizeGb! });
    await this.provisioner.reprice(m, id, action.sizeGb!);
  }
}
