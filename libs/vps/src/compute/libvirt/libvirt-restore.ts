import type { Readable } from 'node:stream';
import { ComputeProviderError, GuestNetwork, InstanceRef, NO_STEPS, RestoredMachine, StepReporter } from '../compute-provider';
import { seedFiles } from './cloud-init-seed';
import type { DeploymentMarks } from './deployment-marks';
import type { DomainInfo } from './domain-state';
import { uploadStream } from './disk-exports';
import type { LibvirtDomains } from './libvirt-domains';
import { lookBeforeRetry } from './look-before-retry';
import { encodeTask } from './power-task';
import { withSeedIso } from './seed-iso';
import type { StoragePool } from './storage-pool';
import { rootVolumeOf, seedVolumeOf } from './volume-names';
import { rbdSeedOf } from '../rbd-disks/rbd-disk-names';
import type { RbdGuestDisks } from '../rbd-disks/rbd-guest-disks';

/** A new definition of a VPS's domain with its root disk and seed (LibvirtComputeProvider's, with the deployment's mark). */
export type DefineDomain = (
  instance: InstanceRef,
  domain: { name: string; vcpus: number; memoryMb: number; network: GuestNetwork | null },
) => Promise<void>;

/**
 * A restore on libvirt: the domain is powered off, its root volume made again from the backup's
 * stream (`virsh vol-upload`, so neither the old disk nor the hypervisor the backup came from is
 * needed) and started, in this call; the task handle returned then follows the boot, as a start's
 * does. What else the hypervisor lost is made again as provisioning makes it, each step looking
 * first: the seed (RestoredMachine's, a volume that is there is kept) and the definition.
 */
export class LibvirtRestore {
  constructor(
    private readonly domains: LibvirtDomains,
    private readonly pool: StoragePool,
    private readonly marks: DeploymentMarks,
    private readonly define: DefineDomain,
    private readonly changeTimeoutMs: number,
    /** Where the VPS's disks are on Ceph (rbd-disk-backups.ts); null: in its host's pool. */
    private readonly rbdOf: (instance: InstanceRef) => RbdGuestDisks | null = () => null,
    private readonly io = { upload: uploadStream, seedIso: withSeedIso },
  ) {}

  async restore(
    instance: InstanceRef,
    open: () => Promise<Readable>,
    sizeBytes: number,
    machine?: RestoredMachine,
    steps: StepReporter = NO_STEPS,
  ): Promise<string> {
    const uri = this.domains.uriOf(instance);
    const name = this.domains.domainOf(instance);
    const domain = await this.defined(instance);
    if (domain) {
      await this.marks.refuseForeign(uri, domain.name);
      if (domain.id) {
        await steps(10, 'powering the server off');
        await this.domains.powerOffOnce(instance, domain.name);
      }
    }
    const size = machine?.vcpus && machine.memoryMb ? { vcpus: machine.vcpus, memoryMb: machine.memoryMb } : null;
    if (!domain && !size)
      throw new ComputeProviderError(
        'not_found',
        `The machine ${name} is not on its hypervisor, and its size is not on record to define it again.`,
      );
    await steps(20, 'copying the backup onto the disk');
    const rbd = this.rbdOf(instance);
    if (rbd) await rbd.backups.restore(instance.serviceId, open);
    else await this.writeRoot(instance, open, sizeBytes);
    if (machine && !(await this.hasSeed(instance, rbd))) {
      await steps(75, 'writing the cloud-init seed again');
      const files = seedFiles(machine.seed, machine.network);
      const seed = seedVolumeOf(instance.serviceId);
      await this.io.seedIso(files, (file, bytes) =>
        rbd ? rbd.writeSeed(instance.serviceId, file) : this.pool.upload(uri, seed, file, 'raw', bytes),
      );
    }
    if (!domain && size) {
      await steps(78, 'defining the server again');
      await lookBeforeRetry(
        () => this.define(instance, { name, ...size, network: machine?.network ?? null }),
        () => this.domains.exists(instance),
      );
    }
    await steps(80, 'starting the server');
    await this.domains.startOnce(instance, name);
    return encodeTask({ type: 'start', since: Date.now(), domainId: null });
  }

  private hasSeed(instance: InstanceRef, rbd: RbdGuestDisks | null): Promise<boolean> {
    return rbd
      ? rbd.exists(rbdSeedOf(instance.serviceId))
      : this.pool.exists(this.domains.uriOf(instance), seedVolumeOf(instance.serviceId));
  }

  /** The domain; null when libvirt says it is not defined. */
  private defined(instance: InstanceRef): Promise<DomainInfo | null> {
    return this.domains
      .info(instance, this.changeTimeoutMs)
      .catch((err: unknown) => (err instanceof ComputeProviderError && err.code === 'not_found' ? null : Promise.reject(err)));
  }

  /** A half-written disk is worth nothing: every try starts again from an empty volume. */
  private async writeRoot(instance: InstanceRef, open: () => Promise<Readable>, sizeBytes: number): Promise<void> {
    const uri = this.domains.uriOf(instance);
    const volume = rootVolumeOf(instance.serviceId);
    await this.pool.remove(uri, volume);
    await this.pool.ensure(uri);
    const { name: pool } = this.pool;
    await this.domains.run(instance, [
      'vol-create-as',
      '--pool',
      pool,
      '--name',
      volume,
      '--capacity',
      `${sizeBytes}b`,
      '--format',
      'qcow2',
    ]);
    await this.io.upload(uri, pool, volume, open);
    await this.pool.sizes(uri, volume); // refreshes the pool: libvirt sees the restored disk's real size
  }
}
