import { ComputeProviderError } from '../compute-provider';
import { GIB, VolumeRef } from './volume-backend';
import { volumeName } from './volume-names';

/** A volume another deployment made: never grown, removed or adopted from here. */
export const FOREIGN_VOLUME = 'foreign_volume';

/** The refusal every backend gives a smaller size: volumes only grow (the guest's filesystem would be cut short). */
export function shrinkRefused(volume: VolumeRef, sizeBytes: number): ComputeProviderError {
  const size = Number((sizeBytes / GIB).toFixed(2));
  return new ComputeProviderError('invalid_size', `The volume ${volumeName(volume.volumeId)} has ${size} GiB; volumes grow, never shrink.`);
}

export function volumeNotFound(volume: VolumeRef): ComputeProviderError {
  return new ComputeProviderError('not_found', `The volume ${volumeName(volume.volumeId)} does not exist.`);
}

export function foreignVolume(volume: VolumeRef, mark: string): ComputeProviderError {
  return new ComputeProviderError(FOREIGN_VOLUME, `The volume ${volumeName(volume.volumeId)} was made by another deployment (${mark}).`);
}
