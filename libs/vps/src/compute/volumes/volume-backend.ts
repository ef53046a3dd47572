import type { CephMonitor } from '@app/core';
import type { HostTarget } from '../../hosts/host.entity';

export const GIB = 1024 ** 3;

/**
 * Which volume, and for a backend bound to one hypervisor (local) where it lives: the host placement
 * chose, else the region's hypervisor. RBD volumes live in the cluster and ignore the place.
 */
export interface VolumeRef {
  volumeId: string;
  region: string;
  host?: Pick<HostTarget, 'uri'> | null;
}

/** What a libvirt `<disk>` needs to reach a volume's bytes: an RBD image over the network, or a volume of a storage pool. */
export type VolumeSource =
  | { type: 'rbd'; pool: string; image: string; monitors: CephMonitor[]; auth: { username: string; secretUuid: string } | null }
  | { type: 'pool'; pool: string; volume: string };

/**
 * A volume a backend holds, for reconciliation. `ours`: it carries this deployment's mark; `none`:
 * the backend keeps no marks (local), so the volume id in its name decides, as for `svc-` volumes.
 * Volumes marked by another deployment are never listed.
 */
export interface VolumeListing {
  ref: VolumeRef;
  sizeBytes: number;
  mark: 'ours' | 'none';
}

/**
 * The port to where volumes keep their bytes (VOLUME_BACKEND): RBD images on Ceph, raw volumes in
 * a hypervisor's libvirt pool, or the simulator's memory. Every step looks before it acts, so a
 * retry after a lost answer does no harm. Errors are ComputeProviderErrors: `retryable` when the
 * backend cannot be reached, `not_found`, `invalid_size` (a shrink), `foreign_volume` (another
 * deployment's), `volume_in_use` (RBD: a machine still has it open).
 */
export abstract class VolumeBackend {
  /** Makes the volume of `sizeGb` GiB, carrying this deployment's mark; one that is there already is kept as it is. */
  abstract create(volume: VolumeRef, sizeGb: number): Promise<void>;

  /** Grows the volume to `sizeGb` GiB (that size already: nothing to do; smaller: `invalid_size`). A running guest learns of it through ComputeProvider.resizeVolume. */
  abstract resize(volume: VolumeRef, sizeGb: number): Promise<void>;

  /** Deletes the volume and its bytes; one that is gone is fine. Detach it from its machine first. */
  abstract remove(volume: VolumeRef): Promise<void>;

  abstract exists(volume: VolumeRef): Promise<boolean>;

  /** The volume's size in bytes; `not_found` when it is gone. */
  abstract sizeOf(volume: VolumeRef): Promise<number>;

  /** The `vol-` volumes this deployment made (and, where the backend keeps no marks, unmarked ones). */
  abstract list(): Promise<VolumeListing[]>;

  /** What the machine's `<disk>` points at. */
  abstract diskSource(volume: VolumeRef): VolumeSource;

  /**
   * Makes a hypervisor ready to open volumes (the cephx key as a libvirt secret, the local pool).
   * host:add runs it; run it again before attaching on a hypervisor of the configuration, or after a
   * key rotation (it replaces what is there).
   */
  abstract prepareHost(uri: string): Promise<void>;
}
