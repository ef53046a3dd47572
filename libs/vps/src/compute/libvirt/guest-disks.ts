import type { GuestBoot, GuestNetwork } from '../compute-provider';
import { seedFiles } from './cloud-init-seed';
import { withSeedIso } from './seed-iso';
import type { RbdGuestDisks } from '../rbd-disks/rbd-guest-disks';
import { StoragePool } from './storage-pool';
import { imageVolume, rootVolumeOf, seedVolumeOf } from './volume-names';

/**
 * A VPS's root disk (a copy-on-write disk on the image) and its seed, made again if they exist: in
 * the host's pool, or as RBD images where the region's disks are on Ceph.
 */
export async function writeGuestDisks(
  pool: StoragePool,
  uri: string,
  serviceId: string,
  boot: GuestBoot,
  network: GuestNetwork | null,
  rbd: RbdGuestDisks | null = null,
): Promise<void> {
  if (rbd) {
    await rbd.removeMachine(serviceId);
    await rbd.createRoot(serviceId, boot.imageId, boot.diskGb);
    return withSeedIso(seedFiles(boot.seed, network), (file) => rbd.writeSeed(serviceId, file));
  }
  const root = rootVolumeOf(serviceId);
  const seed = seedVolumeOf(serviceId);
  await pool.remove(uri, root);
  await pool.createOverlay(uri, root, imageVolume(boot.imageId), boot.imageFormat, boot.diskGb);
  await pool.remove(uri, seed);
  await withSeedIso(seedFiles(boot.seed, network), (file, size) => pool.upload(uri, seed, file, 'raw', size));
}
