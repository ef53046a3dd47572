import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { BackupRetirement } from '../backups/backup-retirement';
import { ComputeProvider, instanceRef } from '../compute/compute-provider';
import { FirewallsService } from '../firewalls/firewalls.service';
import { HostPlacement } from '../hosts/host-placement';
import { NetworkAllocator } from '../instances/network/network-allocator';
import { VpsInstancesRepository } from '../instances/vps-instances.repository';
import { VolumesRepository } from '../volumes/volumes.repository';
import { RdnsService } from '../rdns/rdns.service';
import { VpsHostKeys } from '../host-keys/vps-host-keys';

/**
 * A terminated VPS, in the status change's transaction: its machine and disks deleted, its address
 * or port and its host's capacity given back, its firewalls removed, its volumes detached (their data stays), its addresses' PTRs back to the default, its backups deleted after a grace period.
 */
@Injectable()
export class VpsTermination {
  constructor(
    private readonly compute: ComputeProvider,
    private readonly instances: VpsInstancesRepository,
    private readonly network: NetworkAllocator,
    private readonly backups: BackupRetirement,
    private readonly placement: HostPlacement,
    private readonly firewalls: FirewallsService,
    private readonly volumes: VolumesRepository,
    private readonly rdns: RdnsService,
    private readonly hostKeys: VpsHostKeys,
  ) {}

  async terminate(manager: EntityManager, serviceId: string): Promise<void> {
    const machine = await this.instances.machineOf(serviceId, manager);
    // The machine goes first: if the hypervisor refuses, the service keeps its status.
    const ref = instanceRef(serviceId, machine ?? { providerRef: null, region: null });
    await this.compute.destroyMachine(ref);
    await this.rdns.release(manager, serviceId);
    await this.hostKeys.forget(manager, serviceId);
    await this.instances.retire(manager, serviceId);
    await this.network.release(manager, serviceId);
    await this.backups.retire(manager, serviceId);
    await this.placement.release(manager, serviceId);
    await this.firewalls.detachTerminated(manager, serviceId);
    await this.volumes.detachAllFrom(manager, serviceId);
  }
}
