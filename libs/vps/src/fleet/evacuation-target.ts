import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import type { GuestNetwork } from '../compute/compute-provider';
import { NetworkAllocator } from '../instances/network/network-allocator';
import type { HostNeed, HostRow } from '../hosts/host.entity';
import { HostPlacement } from '../hosts/host-placement';
import { sshScope } from './move-network';
import { VpsEvacuationsRepository } from './vps-evacuations.repository';

/**
 * Where an evacuated VPS goes: an enabled host of its region ranked by PLACEMENT_POLICY,
 * its room held as a drained VPS's is (HostPlacement.reserveElsewhere), in the caller's transaction. In user
 * networking the VPS's forwarded SSH port is kept when the new host has it free, else it gets one
 * of that host's; the old host's lease goes when the evacuation is settled.
 */
@Injectable()
export class EvacuationTarget {
  constructor(
    private readonly placement: HostPlacement,
    private readonly network: NetworkAllocator,
    private readonly evacuations: VpsEvacuationsRepository,
  ) {}

  reserve(m: EntityManager, region: string, need: HostNeed, fromHostId: string): Promise<HostRow | null> {
    return this.placement.reserveElsewhere(m, region, need, fromHostId);
  }

  /** The VPS's network on the new host (a bridge's addresses are the region's: unchanged). */
  async networkOn(m: EntityManager, serviceId: string, hostId: string, network: GuestNetwork | null): Promise<GuestNetwork | null> {
    if (network?.mode !== 'user') return network;
    if (await this.evacuations.leaseValue(m, serviceId, sshScope(hostId), String(network.sshPort))) return network;
    return this.network.allocate(m, serviceId, `host:${hostId}`);
  }
}
