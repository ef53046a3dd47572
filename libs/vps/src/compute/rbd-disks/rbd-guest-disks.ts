import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { VolumesConfig } from '@app/core';
import { ComputeProviderError, MACHINE_PREFIX } from '../compute-provider';
import type { DeploymentIdentity } from '../deployment-identity';
import type { ImageFormat } from '../image-store';
import { CephCli } from '../volumes/ceph-cli';
import { prepareCephHost, rbdDiskSource } from '../volumes/ceph-secret';
import type { Virsh } from '../libvirt/virsh';
import type { VolumeSource } from '../volumes/volume-backend';
import { rbdImageOf, rbdRescueOf, rbdRescueSeedOf, rbdRootOf, rbdSeedOf } from './rbd-disk-names';
import { convertDisk } from './qemu-img';
import { RbdDiskBackups } from './rbd-disk-backups';
import { fenceRbdImages } from './rbd-fencing';
import { BASE_SNAPSHOT, isCode, RbdImages } from './rbd-images';
import { RbdSnapshotImages } from './rbd-snapshot-images';
import { importSparse } from './rbd-sparse-import';

/** The cluster and pool a region's VPS disks live in (DISKS_RBD_POOL, and the volumes' Ceph client). */
export type RbdDisksConfig = Pick<VolumesConfig, 'cephMonitors' | 'cephClientName' | 'cephClientKey'> & { pool: string };

/**
 * A VPS's root disk and cloud-init seed as RBD images (`svc-<id>-root`, `svc-<id>-seed`) in
 * DISKS_RBD_POOL, the root a copy-on-write clone of its image's `img-<id>@base`; QEMU opens them over
 * the network, so any host of the region can run the VPS from its current disk. Every image carries
 * this deployment's mark (as volumes do): one of another deployment's is never replaced or removed.
 * Each step looks before it acts, so a try after a lost answer does no harm.
 */
export class RbdGuestDisks {
  readonly images: RbdImages;
  /** Snapshot images and backups of these disks (rbd-snapshot-images.ts, rbd-disk-backups.ts). */
  readonly snapshotImages: RbdSnapshotImages;
  readonly backups: RbdDiskBackups;

  constructor(
    private readonly config: RbdDisksConfig,
    identity: Pick<DeploymentIdentity, 'id'>,
    /** Where hosts get the cephx key (a libvirt secret) QEMU opens the disks with. */
    private readonly hosts: { virsh: Virsh; timeoutMs: number } | null = null,
    private readonly cli = new CephCli(config),
    private readonly qemuImg = 'qemu-img',
  ) {
    this.images = new RbdImages(cli, config.pool, config.cephClientName, identity);
    this.snapshotImages = new RbdSnapshotImages(this.images);
    this.backups = new RbdDiskBackups(this.images, qemuImg);
  }

  /** With cephx, QEMU on the host reads the key from the libvirt secret volumes use too (the same client and cluster). */
  async prepareHost(uri: string): Promise<void> {
    if (this.hosts) await prepareCephHost(this.hosts.virsh, uri, this.config, this.hosts.timeoutMs);
  }

  /**
   * The image's bytes as `img-<id>` (raw, as QEMU reads RBD), snapshotted and protected as `@base`.
   * An image whose `@base` is there is complete and kept; one without it is what an interrupted
   * import left, and is made again. A qcow2 file is converted on the API host (qemu-img, sparse).
   */
  async importImage(imageId: string, file: string, format: ImageFormat): Promise<void> {
    const image = rbdImageOf(imageId);
    await this.images.ensurePool();
    if (await this.images.hasBase(image)) return;
    await this.images.removeOurs(image);
    const dir = await mkdtemp(join(tmpdir(), 'rbd-import-'));
    try {
      let raw = file;
      if (format !== 'raw') {
        raw = join(dir, 'image.raw');
        const failure = { code: 'invalid_image', message: 'The image could not be converted for Ceph.' };
        await convertDisk({ file, format }, { file: raw, format: 'raw' }, failure, this.qemuImg);
      }
      await importSparse(this.cli, raw, this.images.spec(image), this.qemuImg);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    await this.images.mark(image);
    await this.images.makeBase(image);
  }

  /** Removes the image; `image_in_use` while VPS disks are still clones of it. */
  async removeImage(imageId: string): Promise<void> {
    const image = rbdImageOf(imageId);
    await this.images.refuseForeign(image);
    if (await this.images.hasBase(image)) {
      const children = await this.cli.rbd(['children', `${this.images.spec(image)}@${BASE_SNAPSHOT}`, '--format', 'json']);
      const count = (JSON.parse(children || '[]') as unknown[]).length;
      if (count) throw new ComputeProviderError('image_in_use', `The image is the base of ${count} VPS disk(s) on Ceph.`);
    }
    await this.images.removeOurs(image);
  }

  /** The VPS's root disk: a clone of its image's `@base`, grown to `gb` GiB; one that is there is kept as it is. */
  createRoot(serviceId: string, imageId: string, gb: number): Promise<void> {
    return this.cloneImage(rbdRootOf(serviceId), imageId, gb);
  }

  /** The seed ISO as `svc-<id>-seed`, made again from the file (its content is the service's, which may have changed). */
  writeSeed(serviceId: string, isoFile: string): Promise<void> {
    return this.importIso(rbdSeedOf(serviceId), isoFile);
  }

  /** The rescue system's disk, made afresh from the rescue image (a rescue begins from a clean system), and its seed. */
  async createRescue(serviceId: string, imageId: string, gb: number, isoFile: string): Promise<void> {
    await this.images.removeOurs(rbdRescueOf(serviceId));
    await this.cloneImage(rbdRescueOf(serviceId), imageId, gb);
    await this.importIso(rbdRescueSeedOf(serviceId), isoFile);
  }

  async removeRescue(serviceId: string): Promise<void> {
    for (const image of [rbdRescueOf(serviceId), rbdRescueSeedOf(serviceId)]) await this.images.removeOurs(image);
  }

  /** Every disk of the VPS (a rescue's too) and their snapshots; what is gone is fine. */
  async removeMachine(serviceId: string): Promise<void> {
    for (const image of [rbdRootOf(serviceId), rbdSeedOf(serviceId)]) await this.images.removeOurs(image);
    await this.removeRescue(serviceId);
  }

  /** How reconciliation names the pool among the hypervisors it lists. */
  get inventoryName(): string {
    return `rbd:${this.config.pool}`;
  }

  /** The `svc-` images of the pool (every VPS disk, seed and rescue disk; whoever made them); none while the pool is not made. */
  async machineImages(): Promise<string[]> {
    const pools = JSON.parse(await this.cli.ceph(['osd', 'pool', 'ls', '--format', 'json'])) as string[];
    if (!pools.includes(this.config.pool)) return [];
    const listed = JSON.parse((await this.cli.rbd(['ls', '-p', this.config.pool, '--format', 'json'])) || '[]') as string[];
    return listed.filter((image) => image.startsWith(MACHINE_PREFIX));
  }

  /** An orphaned VPS disk (reconciliation): removed with its snapshots unless another deployment made it. */
  async removeMachineImage(image: string): Promise<void> {
    if (!image.startsWith(MACHINE_PREFIX)) throw new ComputeProviderError('invalid_state', `${image} is not a name of ours.`);
    await this.images.removeOurs(image);
  }

  /** Whatever else has the VPS's disks open (a dead host's QEMU) is cut off by the cluster: see rbd-fencing.ts. */
  async fence(serviceId: string): Promise<string[]> {
    return fenceRbdImages(this.cli, this.config.pool, [rbdRootOf(serviceId), rbdSeedOf(serviceId)]);
  }

  exists(image: string): Promise<boolean> {
    return this.images.exists(image);
  }

  sizeOf(image: string): Promise<number> {
    return this.images.sizeOf(image);
  }

  /** What a `<disk>` of the domain points at. */
  source(image: string): Extract<VolumeSource, { type: 'rbd' }> {
    return rbdDiskSource(this.config, this.config.pool, image);
  }

  /** The VPS's own root disk and seed, as its domain's `{{disks}}` take them. */
  sourcesOf(serviceId: string): { root: Extract<VolumeSource, { type: 'rbd' }>; seed: Extract<VolumeSource, { type: 'rbd' }> } {
    return { root: this.source(rbdRootOf(serviceId)), seed: this.source(rbdSeedOf(serviceId)) };
  }

  private async cloneImage(target: string, imageId: string, gb: number): Promise<void> {
    await this.images.ensurePool();
    if (!(await this.images.exists(target))) {
      const base = `${this.images.spec(rbdImageOf(imageId))}@${BASE_SNAPSHOT}`;
      await this.cli
        .rbd(['clone', base, this.images.spec(target)], { expected: ['volume_exists'] })
        .catch((err: unknown) => (isCode(err, 'volume_exists') ? undefined : Promise.reject(err)));
    }
    await this.images.refuseForeign(target);
    await this.images.mark(target);
    const size = await this.images.sizeOf(target);
    if (size < gb * 1024 ** 3) await this.cli.rbd(['resize', this.images.spec(target), '--size', `${gb}G`, '--no-progress']);
  }

  private async importIso(target: string, isoFile: string): Promise<void> {
    await this.images.removeOurs(target);
    await this.cli.rbd(['import', '--image-format', '2', '--no-progress', isoFile, this.images.spec(target)]);
    await this.images.mark(target);
  }
}
