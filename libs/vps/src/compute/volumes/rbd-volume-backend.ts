import type { VolumesConfig } from '@app/core';
import { ComputeProviderError } from '../compute-provider';
import type { DeploymentIdentity } from '../deployment-identity';
import type { Virsh } from '../libvirt/virsh';
import { CephCli } from './ceph-cli';
import { prepareCephHost, rbdDiskSource } from './ceph-secret';
import { ensureRbdPool } from './rbd-pool';
import { GIB, VolumeBackend, VolumeListing, VolumeRef, VolumeSource } from './volume-backend';
import { foreignVolume, shrinkRefused, volumeNotFound } from './volume-errors';
import { volumeIdOf, volumeName } from './volume-names';

/** The image metadata key of the deployment mark (`rbd image-meta`). */
export const MARK_KEY = 'hosting.deployment';

const isCode = (err: unknown, code: string) => err instanceof ComputeProviderError && err.code === code;

/** An image and the mark it carries: null when it has none (made by hand, or a crash between create and mark). */
type Image = { exists: false } | { exists: true; mark: string | null };

/**
 * Volumes as RBD images `vol-<id>` in VOLUMES_RBD_POOL, through the rbd tool; QEMU opens them over
 * the network, so a VPS moving to another host takes its volumes along with nothing copied. Each
 * image carries this deployment's id as image metadata: one marked by another deployment is never
 * grown, removed, adopted or listed.
 */
export class RbdVolumeBackend extends VolumeBackend {
  private poolReady = false;

  constructor(
    private readonly config: VolumesConfig,
    private readonly identity: Pick<DeploymentIdentity, 'id'>,
    private readonly virsh: Virsh,
    private readonly changeTimeoutMs: number,
    private readonly cli = new CephCli(config),
  ) {
    super();
  }

  async create(volume: VolumeRef, sizeGb: number): Promise<void> {
    await this.ensurePool();
    let image = await this.image(volume);
    if (!image.exists) {
      await this.cli.rbd(['create', this.spec(volume), '--size', `${sizeGb}G`], { expected: ['volume_exists'] }).catch((err: unknown) =>
        // An earlier try that lost its answer made it: look at its mark below.
        isCode(err, 'volume_exists') ? undefined : Promise.reject(err),
      );
      image = await this.image(volume);
    }
    const ours = await this.identity.id();
    if (image.exists && image.mark !== null && image.mark !== ours) throw foreignVolume(volume, image.mark);
    if (!image.exists || image.mark === null) await this.cli.rbd(['image-meta', 'set', this.spec(volume), MARK_KEY, ours]);
  }

  async resize(volume: VolumeRef, sizeGb: number): Promise<void> {
    await this.refuseForeign(volume);
    const size = await this.sizeOf(volume);
    if (sizeGb * GIB < size) throw shrinkRefused(volume, size);
    if (sizeGb * GIB === size) return;
    // Without --allow-shrink rbd refuses a smaller size too, should two resizes cross.
    await this.cli.rbd(['resize', this.spec(volume), '--size', `${sizeGb}G`, '--no-progress']);
  }

  async remove(volume: VolumeRef): Promise<void> {
    const image = await this.image(volume);
    if (!image.exists) return;
    const ours = await this.identity.id();
    if (image.mark !== null && image.mark !== ours) throw foreignVolume(volume, image.mark);
    await this.cli
      .rbd(['rm', this.spec(volume), '--no-progress'], { expected: ['not_found'] })
      .catch((err: unknown) => (isCode(err, 'not_found') ? undefined : Promise.reject(err)));
  }

  async exists(volume: VolumeRef): Promise<boolean> {
    return (await this.image(volume)).exists;
  }

  async sizeOf(volume: VolumeRef): Promise<number> {
    const info = await this.cli.rbd(['info', this.spec(volume), '--format', 'json']).catch((err: unknown) => {
      throw isCode(err, 'not_found') ? volumeNotFound(volume) : err;
    });
    return (JSON.parse(info) as { size: number }).size;
  }

  /** One `rbd ls -l` for names and sizes, then each `vol-` image's mark; a pool not made yet holds nothing. */
  async list(): Promise<VolumeListing[]> {
    const listing = await this.cli
      .rbd(['ls', '-l', '-p', this.config.rbdPool, '--format', 'json'], { expected: ['not_found'] })
      .catch((err: unknown) => (isCode(err, 'not_found') ? '[]' : Promise.reject(err)));
    const ours = await this.identity.id();
    const volumes: VolumeListing[] = [];
    for (const entry of JSON.parse(listing) as { image: string; size: number; snapshot?: string }[]) {
      const volumeId = volumeIdOf(entry.image);
      if (!volumeId || entry.snapshot !== undefined) continue;
      const image = await this.image({ volumeId, region: '' });
      if (!image.exists || (image.mark !== null && image.mark !== ours)) continue;
      volumes.push({ ref: { volumeId, region: '' }, sizeBytes: entry.size, mark: image.mark === null ? 'none' : 'ours' });
    }
    return volumes;
  }

  diskSource(volume: VolumeRef): VolumeSource {
    return rbdDiskSource(this.config, this.config.rbdPool, volumeName(volume.volumeId));
  }

  prepareHost(uri: string): Promise<void> {
    return prepareCephHost(this.virsh, uri, this.config, this.changeTimeoutMs);
  }

  private spec(volume: VolumeRef): string {
    return `${this.config.rbdPool}/${volumeName(volume.volumeId)}`;
  }

  private async image(volume: VolumeRef): Promise<Image> {
    try {
      const listed = await this.cli.rbd(['image-meta', 'list', this.spec(volume), '--format', 'json'], { expected: ['not_found'] });
      // An image without metadata prints nothing at all, not {}.
      const meta = listed.trim() ? JSON.parse(listed) : {};
      return { exists: true, mark: (meta as Record<string, string>)[MARK_KEY] ?? null };
    } catch (err) {
      if (isCode(err, 'not_found')) return { exists: false };
      throw err;
    }
  }

  private async refuseForeign(volume: VolumeRef): Promise<void> {
    const image = await this.image(volume);
    if (!image.exists) throw volumeNotFound(volume);
    if (image.mark !== null && image.mark !== (await this.identity.id())) throw foreignVolume(volume, image.mark);
  }

  /** Once per process: the pool is made and initialised for RBD when missing, if the client's caps allow. */
  private async ensurePool(): Promise<void> {
    if (this.poolReady) return;
    await ensureRbdPool(this.cli, this.config.rbdPool, this.config.cephClientName);
    this.poolReady = true;
  }
}
