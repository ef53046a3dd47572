import type { GuestBoot, GuestNetwork } from '../compute-provider';
import { seedFiles } from './cloud-init-seed';
import { withSeedIso } from './seed-iso';
import { StoragePool } from './storage-pool';
import { imageVolume, rootVolumeOf, seedVolumeOf } from './volume-names';

/** A VPS's root disk (a copy-on-write disk on the image) and its seed, made again if they exist. */
export async function writeGuestDisks(
  pool: StoragePool,
  uri: string,
  serviceId: string,
  boot: GuestBoot,
  network: GuestNetwork | null,
): Promise<void> {
  const root = rootVolumeOf(serviceId);
  const seed = seedVolumeOf(serviceId);
  await pool.remove(uri, root);
  await pool.createOverlay(uri, root, imageVolume(boot.imageId), boot.imageFormat, boot.diskGb);
  await pool.remove(uri, seed);
  await withSeedIso(seedFiles(boot.seed, network), (file, size) => pool.upload(uri, seed, file, 'raw', size));
}
