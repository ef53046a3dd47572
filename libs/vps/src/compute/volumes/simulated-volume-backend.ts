import { GIB, VolumeBackend, VolumeListing, VolumeRef, VolumeSource } from './volume-backend';
import { shrinkRefused, volumeNotFound } from './volume-errors';
import { volumeName } from './volume-names';

/**
 * Volumes of the compute simulator: sizes in this process's memory (a restart forgets them, as
 * the simulator keeps no disks), with the real backends' rules: grow only, gone is fine to remove.
 */
export class SimulatedVolumeBackend extends VolumeBackend {
  private readonly sizes = new Map<string, number>();

  create(volume: VolumeRef, sizeGb: number): Promise<void> {
    if (!this.sizes.has(volume.volumeId)) this.sizes.set(volume.volumeId, sizeGb * GIB);
    return Promise.resolve();
  }

  async resize(volume: VolumeRef, sizeGb: number): Promise<void> {
    const size = await this.sizeOf(volume);
    if (sizeGb * GIB < size) throw shrinkRefused(volume, size);
    this.sizes.set(volume.volumeId, sizeGb * GIB);
  }

  remove(volume: VolumeRef): Promise<void> {
    this.sizes.delete(volume.volumeId);
    return Promise.resolve();
  }

  exists(volume: VolumeRef): Promise<boolean> {
    return Promise.resolve(this.sizes.has(volume.volumeId));
  }

  sizeOf(volume: VolumeRef): Promise<number> {
    const size = this.sizes.get(volume.volumeId);
    if (size === undefined) return Promise.reject(volumeNotFound(volume));
    return Promise.resolve(size);
  }

  list(): Promise<VolumeListing[]> {
    return Promise.resolve(
      [...this.sizes].map(([volumeId, sizeBytes]) => ({ ref: { volumeId, region: '' }, sizeBytes, mark: 'ours' as const })),
    );
  }

  diskSource(volume: VolumeRef): VolumeSource {
    return { type: 'pool', pool: 'simulated', volume: volumeName(volume.volumeId) };
  }

  prepareHost(): Promise<void> {
    return Promise.resolve();
  }
}
