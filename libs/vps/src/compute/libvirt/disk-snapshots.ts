import { Logger } from '@nestjs/common';
import { ComputeProviderError, InstanceRef, NO_STEPS, StepReporter, TaskStatus } from '../compute-provider';
import type { SnapshotConsistency } from '../../vps.types';
import type { DomainInfo } from './domain-state';
import { LibvirtDomains } from './libvirt-domains';
import { StoragePool } from './storage-pool';
import { imageVolume, rootVolumeOf } from './volume-names';
import { withXmlFile } from './xml-file';
import type { RbdGuestDisks } from '../rbd-disks/rbd-guest-disks';
import type { RbdSnapshotImages } from '../rbd-disks/rbd-snapshot-images';

/** The guest agent answers within seconds or not at all. */
const AGENT_TIMEOUT_MS = 30_000;

/**
 * `live`: a push-mode backup job of the running domain; `copy`: libvirt's copy of a stopped domain's
 * volume; `rbd`: a disk on Ceph snapshotted and copied into its image (rbd-snapshot-images.ts); both done when begun.
 */
export interface SnapshotTask {
  since: number;
  imageId: string;
  mode: 'live' | 'copy' | 'rbd';
  consistency: SnapshotConsistency;
}

const PREFIX = 'snapshot:';
const isBackup = (job: { type: string; operation: string | null }): boolean => job.operation === 'Backup' && job.type !== 'None';
export const isSnapshotTask = (taskId: string): boolean => taskId.startsWith(PREFIX);
export const encodeSnapshotTask = (t: SnapshotTask): string => `${PREFIX}${t.since}:${t.imageId}:${t.mode}:${t.consistency}`;

export function decodeSnapshotTask(taskId: string): SnapshotTask {
  const [, since, imageId, mode, consistency] = taskId.split(':');
  if (!/^\d+$/.test(since) || !/^[0-9a-f-]{36}$/.test(imageId ?? '') || (mode !== 'live' && mode !== 'copy' && mode !== 'rbd')) {
    throw new ComputeProviderError('task_not_found', 'The hypervisor has no record of this task.');
  }
  return { since: Number(since), imageId, mode, consistency: consistency === 'filesystem' ? 'filesystem' : 'crash' };
}

const UNITS: Record<string, number> = { B: 1, KiB: 1024, MiB: 1024 ** 2, GiB: 1024 ** 3, TiB: 1024 ** 4 };

/**
 * What `virsh domjobinfo` says: `Job type: Unbounded|Completed|Failed|None`, `Operation: Backup`,
 * and how much of the disk it has copied (`Data processed` of `Data total`, 0-1) when it tells.
 */
export function jobOf(output: string): { type: string; operation: string | null; done: number | null } {
  const field = (name: string) => new RegExp(`^${name}:\\s+(\\S+)`, 'm').exec(output)?.[1] ?? null;
  const bytes = (name: string) => {
    const [, value, unit] = new RegExp(`^${name}:\\s+([\\d.]+)\\s*(\\w+)`, 'm').exec(output) ?? [];
    return value && UNITS[unit] ? Number(value) * UNITS[unit] : null;
  };
  const processed = bytes('Data processed');
  const total = bytes('Data total');
  const done = processed !== null && total ? Math.min(1, processed / total) : null;
  return { type: field('Job type') ?? 'None', operation: field('Operation'), done };
}

/**
 * A VPS's root disk copied into the image volume `img-<image id>`, standalone (no backing file), with
 * virsh alone (docs/compute-provider.md, "Snapshots"). A running domain is copied live by a
 * push-mode backup job into a file of the pool, its filesystems frozen by the guest agent while the
 * job starts when the agent answers; a stopped one by `vol-create-from`.
 */
export class DiskSnapshots {
  private readonly logger = new Logger('DiskSnapshots');

  constructor(
    private readonly domains: LibvirtDomains,
    private readonly pool: StoragePool,
  ) {}

  async begin(
    instance: InstanceRef,
    domain: DomainInfo,
    imageId: string,
    steps: StepReporter = NO_STEPS,
    rbd: RbdGuestDisks | null = null,
  ): Promise<SnapshotTask> {
    if (rbd) return this.onCeph(rbd.snapshotImages, instance, domain, imageId, steps);
    const uri = this.domains.uriOf(instance);
    const volume = imageVolume(imageId);
    const since = Date.now();
    if (!domain.id) {
      await steps(10, 'copying the disk of the stopped server');
      await this.pool.copyFlat(uri, rootVolumeOf(instance.serviceId), volume);
      return { since, imageId, mode: 'copy', consistency: 'filesystem' };
    }
    const target = `${await this.pool.path(uri)}/${volume}`;
    const running = await this.runningBackupTarget(instance, domain.name);
    if (running === target) {
      // A job an earlier try began (its answer lost) is adopted, not begun twice; a freeze it left is undone.
      await this.thaw(instance, domain.name);
      return { since, imageId, mode: 'live', consistency: 'crash' };
    }
    if (running !== null)
      throw new ComputeProviderError('invalid_state', 'Another backup job runs on this machine; try again later.', true);
    await this.removeUnlisted(uri, volume);
    const xml = `<domainbackup mode='push'><disks><disk name='${await this.rootTarget(instance, domain.name)}' backup='yes' type='file'>
<driver type='qcow2'/><target file='${target}'/></disk></disks></domainbackup>`;
    await steps(10, "freezing the guest's filesystems");
    const frozen = await this.freeze(instance, domain.name);
    await steps(15, 'copying the disk');
    try {
      await withXmlFile(xml, (file) => this.domains.run(instance, ['backup-begin', domain.name, '--backupxml', file]));
    } finally {
      // The job copies the disk as it was when it began: the guest writes again at once.
      if (frozen) await this.thaw(instance, domain.name);
    }
    return { since, imageId, mode: 'live', consistency: frozen ? 'filesystem' : 'crash' };
  }

  async status(instance: InstanceRef, task: SnapshotTask, rbd: RbdGuestDisks | null = null): Promise<TaskStatus> {
    if (task.mode === 'rbd') {
      if (!rbd) throw new ComputeProviderError('task_not_found', "The snapshot's disk is not on Ceph any more.");
      return {
        state: 'succeeded',
        result: { sizeBytes: await rbd.snapshotImages.sizeOf(task.imageId), consistency: task.consistency },
      };
    }
    const uri = this.domains.uriOf(instance);
    const volume = imageVolume(task.imageId);
    if (task.mode === 'live') {
      const name = this.domains.domainOf(instance);
      const job = jobOf(await this.domains.run(instance, ['domjobinfo', name]));
      if (isBackup(job)) return { state: 'running', progress: 15 + Math.floor(80 * (job.done ?? 0)), step: 'copying the disk' };
      const last = jobOf(await this.domains.run(instance, ['domjobinfo', name, '--completed', '--keep-completed']));
      if (last.operation !== 'Backup' || last.type !== 'Completed') {
        await this.removeUnlisted(uri, volume).catch(() => undefined);
        const detail = last.operation === 'Backup' ? `its backup job ended ${last.type.toLowerCase()}` : 'its backup job is gone';
        return { state: 'failed', error: { code: 'snapshot_failed', message: `The disk could not be copied: ${detail}.` } };
      }
    }
    const { allocation } = await this.pool.sizes(uri, volume);
    return { state: 'succeeded', result: { sizeBytes: allocation, consistency: task.consistency } };
  }

  /** The RBD snapshot taken in a moment (under the guest agent's freeze when it runs), then copied into the image. */
  private async onCeph(
    images: RbdSnapshotImages,
    instance: InstanceRef,
    domain: DomainInfo,
    imageId: string,
    steps: StepReporter,
  ): Promise<SnapshotTask> {
    const since = Date.now();
    let consistency: SnapshotConsistency = 'filesystem';
    if (!(await images.done(imageId))) {
      await steps(10, "freezing the guest's filesystems");
      consistency = await this.frozenWhile(instance, domain, () => images.capture(instance.serviceId, imageId));
    }
    await steps(15, 'copying the disk');
    await images.copyToImage(instance.serviceId, imageId);
    return { since, imageId, mode: 'rbd', consistency };
  }

  /**
   * `capture` (a moment's work: an RBD snapshot) with a running guest's filesystems frozen through its
   * agent, thawed right after; `crash` where no agent answers. A stopped machine's disk is at rest.
   */
  async frozenWhile(instance: InstanceRef, domain: DomainInfo, capture: () => Promise<void>): Promise<SnapshotConsistency> {
    const frozen = domain.id ? await this.freeze(instance, domain.name) : false;
    try {
      await capture();
    } finally {
      if (frozen) await this.thaw(instance, domain.name);
    }
    return !domain.id || frozen ? 'filesystem' : 'crash';
  }

  private async backupRunning(instance: InstanceRef, name: string): Promise<boolean> {
    return isBackup(jobOf(await this.domains.run(instance, ['domjobinfo', name])));
  }

  /** The file a running backup job writes (`backup-dumpxml`), or null when none runs. */
  private async runningBackupTarget(instance: InstanceRef, name: string): Promise<string | null> {
    if (!(await this.backupRunning(instance, name))) return null;
    const xml = await this.domains.run(instance, ['backup-dumpxml', name]).catch(() => '');
    return /<target file=['"]([^'"]+)['"]/.exec(xml)?.[1] ?? '';
  }

  /** The target name (`vda`) of the domain's root volume. */
  private async rootTarget(instance: InstanceRef, name: string): Promise<string> {
    const list = await this.domains.run(instance, ['domblklist', name]);
    const root = rootVolumeOf(instance.serviceId);
    const line = list.split('\n').find((l) => l.trim().split(/\s+/)[1]?.endsWith(root));
    if (!line) throw new ComputeProviderError('invalid_state', 'The machine has no root disk to snapshot.');
    return line.trim().split(/\s+/)[0];
  }

  /** True when the guest agent froze the guest's filesystems; without an agent the copy is crash-consistent. */
  private async freeze(instance: InstanceRef, name: string): Promise<boolean> {
    try {
      await this.domains.run(instance, ['domfsfreeze', name], AGENT_TIMEOUT_MS);
      return true;
    } catch (err) {
      // A freeze whose answer was lost (a timeout) may still have happened.
      if (err instanceof ComputeProviderError && err.retryable) await this.thaw(instance, name);
      this.logger.log(`${name}: no filesystem freeze (${(err as Error).message}); the snapshot is crash-consistent`);
      return false;
    }
  }

  /**
   * The target an earlier try's backup job wrote (libvirt writes it outside the pool's list, so a
   * delete without a refresh first leaves it, and the next job refuses: "store ... exists"). A refresh
   * refused while another volume of the pool is being copied is no reason not to try the delete.
   */
  private async removeUnlisted(uri: string, volume: string): Promise<void> {
    await this.pool.refresh(uri).catch(() => undefined);
    await this.pool.remove(uri, volume);
  }

  private async thaw(instance: InstanceRef, name: string): Promise<void> {
    await this.domains.run(instance, ['domfsthaw', name], AGENT_TIMEOUT_MS).catch(() => undefined);
  }
}
