import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { VolumesConfig } from '@app/core';
import { ComputeProviderError } from '../compute-provider';
import type { DeploymentIdentity } from '../deployment-identity';
import type { ImageFormat } from '../image-store';
import { CephCli } from '../volumes/ceph-cli';
import { prepareCephHost, rbdDiskSource } from '../volumes/ceph-secret';
import { ensureRbdPool } from '../volumes/rbd-pool';
import type { Virsh } from '../libvirt/virsh';
import { MARK_KEY } from '../volumes/rbd-volume-backend';
import type { VolumeSource } from '../volumes/volume-backend';
import { rbdImageOf, rbdRootOf, rbdSeedOf } from './rbd-disk-names';
import { fenceRbdImages } from './rbd-fencing';

/** The snapshot of an image its VPSes' disks are cloned from: present and protected only once the import finished. */
export const BASE_SNAPSHOT = 'base';

const QEMU_IMG_TIMEOUT_MS = 30 * 60_000;

const isCode = (err: unknown, code: string) => err instanceof ComputeProviderError && err.code === code;

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
  private poolReady = false;

  constructor(
    private readonly config: RbdDisksConfig,
    private readonly identity: Pick<DeploymentIdentity, 'id'>,
    /** Where hosts get the cephx key (a libvirt secret) QEMU opens the disks with. */
    private readonly hosts: { virsh: Virsh; timeoutMs: number } | null = null,
    private readonly cli = new CephCli(config),
    private readonly qemuImg = 'qemu-img',
  ) {}

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
    await this.ensurePool();
    if (await this.hasBase(image)) return;
    await this.removeOurs(image);
    const dir = await mkdtemp(join(tmpdir(), 'rbd-import-'));
    try {
      let raw = file;
      if (format !== 'raw') {
        raw = join(dir, 'image.raw');
        await this.convert(file, format, raw);
      }
      await this.cli.rbd(['import', '--image-format', '2', '--no-progress', raw, this.spec(image)]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    await this.mark(image);
    await this.cli.rbd(['snap', 'create', `${this.spec(image)}@${BASE_SNAPSHOT}`, '--no-progress']);
    await this.cli.rbd(['snap', 'protect', `${this.spec(image)}@${BASE_SNAPSHOT}`]);
  }

  /** Removes the image; `image_in_use` while VPS disks are still clones of it. */
  async removeImage(imageId: string): Promise<void> {
    const image = rbdImageOf(imageId);
    await this.refuseForeign(image);
    const base = `${this.spec(image)}@${BASE_SNAPSHOT}`;
    if (await this.hasBase(image)) {
      const children = await this.cli.rbd(['children', base, '--format', 'json']);
      const count = (JSON.parse(children || '[]') as unknown[]).length;
      if (count) throw new ComputeProviderError('image_in_use', `The image is the base of ${count} VPS disk(s) on Ceph.`);
    }
    await this.removeOurs(image);
  }

  /** The VPS's root disk: a clone of its image's `@base`, grown to `gb` GiB; one that is there is kept as it is. */
  async createRoot(serviceId: string, imageId: string, gb: number): Promise<void> {
    const root = rbdRootOf(serviceId);
    await this.ensurePool();
    if (!(await this.markOf(root)).exists) {
      const base = `${this.spec(rbdImageOf(imageId))}@${BASE_SNAPSHOT}`;
      await this.cli
        .rbd(['clone', base, this.spec(root)], { expected: ['volume_exists'] })
        .catch((err: unknown) => (isCode(err, 'volume_exists') ? undefined : Promise.reject(err)));
    }
    await this.refuseForeign(root);
    await this.mark(root);
    const size = await this.sizeOf(root);
    if (size < gb * 1024 ** 3) await this.cli.rbd(['resize', this.spec(root), '--size', `${gb}G`, '--no-progress']);
  }

  /** The seed ISO as `svc-<id>-seed`, made again from the file (its content is the service's, which may have changed). */
  async writeSeed(serviceId: string, isoFile: string): Promise<void> {
    const seed = rbdSeedOf(serviceId);
    await this.removeOurs(seed);
    await this.cli.rbd(['import', '--image-format', '2', '--no-progress', isoFile, this.spec(seed)]);
    await this.mark(seed);
  }

  /** Both disks of the VPS and the root's snapshots; what is gone is fine. */
  async removeMachine(serviceId: string): Promise<void> {
    for (const image of [rbdRootOf(serviceId), rbdSeedOf(serviceId)]) await this.removeOurs(image);
  }

  /** Whatever else has the VPS's disks open (a dead host's QEMU) is cut off by the cluster: see rbd-fencing.ts. */
  async fence(serviceId: string): Promise<string[]> {
    return fenceRbdImages(this.cli, this.config.pool, [rbdRootOf(serviceId), rbdSeedOf(serviceId)]);
  }

  async exists(image: string): Promise<boolean> {
    return (await this.markOf(image)).exists;
  }

  async sizeOf(image: string): Promise<number> {
    return (JSON.parse(await this.cli.rbd(['info', this.spec(image), '--format', 'json'])) as { size: number }).size;
  }

  /** What a `<disk>` of the domain points at. */
  source(image: string): Extract<VolumeSource, { type: 'rbd' }> {
    return rbdDiskSource(this.config, this.config.pool, image);
  }

  private async ensurePool(): Promise<void> {
    if (this.poolReady) return;
    await ensureRbdPool(this.cli, this.config.pool, this.config.cephClientName);
    this.poolReady = true;
  }

  private spec(image: string): string {
    return `${this.config.pool}/${image}`;
  }

  private async hasBase(image: string): Promise<boolean> {
    if (!(await this.markOf(image)).exists) return false;
    const snaps = JSON.parse(await this.cli.rbd(['snap', 'ls', this.spec(image), '--format', 'json'])) as { name: string }[];
    if (!snaps.some((snap) => snap.name === BASE_SNAPSHOT)) return false;
    const info = JSON.parse(await this.cli.rbd(['info', `${this.spec(image)}@${BASE_SNAPSHOT}`, '--format', 'json'])) as {
      protected?: string;
    };
    return info.protected === 'true';
  }

  /** Deletes an image this deployment made (or an unmarked one, which a crash before its mark left) with its snapshots; gone is fine. */
  private async removeOurs(image: string): Promise<void> {
    if (!(await this.markOf(image)).exists) return;
    await this.refuseForeign(image);
    const snaps = JSON.parse(await this.cli.rbd(['snap', 'ls', this.spec(image), '--format', 'json'])) as { name: string }[];
    if (snaps.some((snap) => snap.name === BASE_SNAPSHOT)) {
      await this.cli.rbd(['snap', 'unprotect', `${this.spec(image)}@${BASE_SNAPSHOT}`]).catch(() => undefined);
    }
    if (snaps.length) await this.cli.rbd(['snap', 'purge', this.spec(image), '--no-progress']);
    await this.cli
      .rbd(['rm', this.spec(image), '--no-progress'], { expected: ['not_found'] })
      .catch((err: unknown) => (isCode(err, 'not_found') ? undefined : Promise.reject(err)));
  }

  private async mark(image: string): Promise<void> {
    const { mark } = await this.markOf(image);
    if (mark === null) await this.cli.rbd(['image-meta', 'set', this.spec(image), MARK_KEY, await this.identity.id()]);
  }

  private async refuseForeign(image: string): Promise<void> {
    const { mark } = await this.markOf(image);
    if (mark !== null && mark !== (await this.identity.id()))
      throw new ComputeProviderError('foreign_volume', `The RBD image ${image} was made by another deployment (${mark}).`);
  }

  private async markOf(image: string): Promise<{ exists: boolean; mark: string | null }> {
    try {
      const listed = await this.cli.rbd(['image-meta', 'list', this.spec(image), '--format', 'json'], { expected: ['not_found'] });
      const meta = (listed.trim() ? JSON.parse(listed) : {}) as Record<string, string>;
      return { exists: true, mark: meta[MARK_KEY] ?? null };
    } catch (err) {
      if (isCode(err, 'not_found')) return { exists: false, mark: null };
      throw err;
    }
  }

  private convert(file: string, format: ImageFormat, raw: string): Promise<void> {
    return new Promise((resolve, reject) =>
      execFile(
        this.qemuImg,
        ['convert', '-f', format, '-O', 'raw', '-S', '4k', file, raw],
        { timeout: QEMU_IMG_TIMEOUT_MS, killSignal: 'SIGKILL' },
        (err, _stdout, stderr) => {
          if (!err) return resolve();
          const missing = (err as NodeJS.ErrnoException).code === 'ENOENT';
          reject(
            new ComputeProviderError(
              missing ? 'image_tool_missing' : 'invalid_image',
              missing
                ? 'qemu-img (Debian qemu-utils) is needed on the API host to put a qcow2 image on Ceph.'
                : 'The image could not be converted for Ceph.',
              false,
              String(stderr).trim().slice(-500),
            ),
          );
        },
      ),
    );
  }
}
