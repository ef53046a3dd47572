import { ComputeProviderError } from '../compute-provider';
import type { LibvirtParts } from '../libvirt/libvirt-parts';
import { lookBeforeRetry } from '../libvirt/look-before-retry';
import { VOLUME_EXISTS_CODE } from '../libvirt/virsh';
import { GIB, VolumeBackend, VolumeListing, VolumeRef, VolumeSource } from './volume-backend';
import { shrinkRefused, volumeNotFound } from './volume-errors';
import { volumeIdOf, volumeName } from './volume-names';

/** Answers that are expected while looking (a volume or a pool not made yet). */
const MAY_BE_MISSING = ['not_found'];
const isCode = (err: unknown, code: string) => err instanceof ComputeProviderError && err.code === code;

/**
 * Volumes as raw volumes `vol-<id>` in LIBVIRT_STORAGE_POOL of the volume's hypervisor, through
 * virsh like the root disks: the embedded default and single-machine installs. A volume stays on its
 * hypervisor (a VPS on another host cannot have it). libvirt volumes hold no metadata, so they carry
 * no mark: reconciliation tells them apart by the volume id in the name.
 */
export class LocalVolumeBackend extends VolumeBackend {
  constructor(private readonly parts: Pick<LibvirtParts, 'pool' | 'connections' | 'virsh' | 'changeTimeoutMs'>) {
    super();
  }

  async create(volume: VolumeRef, sizeGb: number): Promise<void> {
    const uri = this.uriOf(volume);
    const name = volumeName(volume.volumeId);
    await this.parts.pool.ensure(uri);
    if (await this.parts.pool.exists(uri, name)) return;
    // Thin: nothing allocated up front (a raw file of the capacity, sparse), as RBD images are.
    const args = [
      'vol-create-as',
      '--pool',
      this.parts.pool.name,
      '--name',
      name,
      '--capacity',
      `${sizeGb}G`,
      '--allocation',
      '0',
      '--format',
      'raw',
    ];
    await lookBeforeRetry(
      () => this.run(uri, args, [VOLUME_EXISTS_CODE]).catch((err: unknown) => (isCode(err, VOLUME_EXISTS_CODE) ? '' : Promise.reject(err))),
      () => this.parts.pool.exists(uri, name),
    );
  }

  async resize(volume: VolumeRef, sizeGb: number): Promise<void> {
    const size = await this.sizeOf(volume);
    if (sizeGb * GIB < size) throw shrinkRefused(volume, size);
    if (sizeGb * GIB === size) return;
    await this.run(this.uriOf(volume), ['vol-resize', '--pool', this.parts.pool.name, volumeName(volume.volumeId), `${sizeGb}G`]);
  }

  remove(volume: VolumeRef): Promise<void> {
    return this.parts.pool.remove(this.uriOf(volume), volumeName(volume.volumeId));
  }

  async exists(volume: VolumeRef): Promise<boolean> {
    return this.parts.pool.exists(this.uriOf(volume), volumeName(volume.volumeId));
  }

  async sizeOf(volume: VolumeRef): Promise<number> {
    const info = await this.run(
      this.uriOf(volume),
      ['vol-info', '--pool', this.parts.pool.name, volumeName(volume.volumeId), '--bytes'],
      MAY_BE_MISSING,
    ).catch((err: unknown) => Promise.reject(isCode(err, 'not_found') ? volumeNotFound(volume) : err));
    return Number(/^Capacity:\s+(\d+) bytes/m.exec(info)?.[1] ?? NaN);
  }

  /** Every hypervisor's `vol-` volumes; one that does not answer, or has no pool yet, is left out. */
  async list(): Promise<VolumeListing[]> {
    const volumes: VolumeListing[] = [];
    for (const uri of await this.parts.connections.all()) {
      const listing = await this.run(uri, ['vol-list', '--pool', this.parts.pool.name], MAY_BE_MISSING).catch(() => '');
      for (const name of listing.split('\n').map((line) => line.trim().split(/\s+/)[0])) {
        const volumeId = name && volumeIdOf(name);
        if (!volumeId) continue;
        const ref = { volumeId, region: '', host: { uri } };
        const sizeBytes = await this.sizeOf(ref).catch(() => null);
        if (sizeBytes !== null) volumes.push({ ref, sizeBytes, mark: 'none' });
      }
    }
    return volumes;
  }

  diskSource(volume: VolumeRef): VolumeSource {
    return { type: 'pool', pool: this.parts.pool.name, volume: volumeName(volume.volumeId) };
  }

  async prepareHost(uri: string): Promise<void> {
    await this.parts.pool.ensure(uri);
  }

  private uriOf(volume: VolumeRef): string {
    return volume.host?.uri ?? this.parts.connections.regionUri(volume.region);
  }

  private run(uri: string, args: string[], expected: readonly string[] = []): Promise<string> {
    return this.parts.virsh.run(uri, args, { timeoutMs: this.parts.changeTimeoutMs, expected });
  }
}
