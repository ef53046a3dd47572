import type { AppConfig } from '@app/core';
import type { DeploymentIdentity } from '../deployment-identity';
import type { LibvirtParts } from '../libvirt/libvirt-parts';
import { LocalVolumeBackend } from './local-volume-backend';
import { RbdVolumeBackend } from './rbd-volume-backend';
import { SimulatedVolumeBackend } from './simulated-volume-backend';
import { VolumeBackend } from './volume-backend';

/**
 * ComputeModule's choice of adapter: the simulator's volumes go with the simulated hypervisor
 * (COMPUTE_PROVIDER=simulator, libvirt null) whatever VOLUME_BACKEND says; real machines get RBD
 * images or volumes of their own pool.
 */
export function volumeBackendFor(libvirt: LibvirtParts | null, config: AppConfig, identity: Pick<DeploymentIdentity, 'id'>): VolumeBackend {
  if (!libvirt) return new SimulatedVolumeBackend();
  if (config.volumes.backend === 'rbd') return new RbdVolumeBackend(config.volumes, identity, libvirt.virsh, libvirt.changeTimeoutMs);
  return new LocalVolumeBackend(libvirt);
}
