import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { AppConfig } from '@app/core';
import type { GuestNetwork } from '../../compute/compute-provider';
import { NetworkAllocator } from '../../instances/network/network-allocator';
import { NetworkLeasesRepository } from '../../instances/network/network-leases.repository';
import { VpsInstancesRepository } from '../../instances/vps-instances.repository';
import { RelocatedVpsRepository } from './relocated-vps.repository';

/** The lease scope of a host's forwarded SSH ports (NetworkAllocator's `ssh-port:host:<id>`). */
export const sshScope = (hostId: string): string => `ssh-port:host:${hostId}`;

/**
 * A relocated VPS's forwarded SSH port (user networking): each hypervisor forwards its own
 * ports (leases scoped `ssh-port:host:<id>`), so the relocation leases one on the new host, the same
 * number when it is free there; the old host's goes when it settles, the new one's when it is
 * rolled back. A live move takes another number: both machines run at once, and every host forwards
 * on the same NETWORK_SSH_LISTEN address. Bridged VPSes keep their addresses: nothing to do.
 */
@Injectable()
export class RelocationNetwork {
  constructor(
    private readonly config: AppConfig,
    private readonly leases: NetworkLeasesRepository,
    private readonly allocator: NetworkAllocator,
    private readonly instances: VpsInstancesRepository,
    private readonly vps: RelocatedVpsRepository,
  ) {}

  /** A copy, in the transaction that holds the room: the port leased on the new host, null without one. */
  async lease(manager: EntityManager, serviceId: string, fromHostId: string, toHostId: string, live = false): Promise<number | null> {
    if (this.config.network.mode !== 'user' || !(await this.leases.holds(manager, serviceId, sshScope(fromHostId)))) return null;
    let current: number | undefined;
    if (live) current = Number((await this.leases.valuesOf(manager, serviceId)).find((l) => l.scope === sshScope(fromHostId))?.value);
    else {
      const same = await this.leases.carry(manager, serviceId, sshScope(fromHostId), sshScope(toHostId));
      if (same !== null) return Number(same);
    }
    const network = await this.allocator.allocate(manager, serviceId, `host:${toHostId}`, current);
    return network.mode === 'user' ? network.sshPort : null;
  }

  /** A copied machine is on the new host: the old host's port goes, the record shows the new one. */
  async settle(manager: EntityManager, serviceId: string, fromHostId: string | null, port: number | null): Promise<void> {
    if (port === null) return;
    if (fromHostId) await this.leases.releaseScope(manager, serviceId, sshScope(fromHostId));
    await this.instances.setSshPort(manager, serviceId, port);
  }

  /** A machine made again: its network on the new host (a bridge's addresses are the region's: unchanged). */
  async recreated(m: EntityManager, serviceId: string, hostId: string, network: GuestNetwork | null): Promise<GuestNetwork | null> {
    if (network?.mode !== 'user') return network;
    if (await this.vps.leaseValue(m, serviceId, sshScope(hostId), String(network.sshPort))) return network;
    return this.allocator.allocate(m, serviceId, `host:${hostId}`);
  }

  /** A machine made again is on the new host: the old host's port goes (the record's network is written with the instance). */
  async settleRecreated(m: EntityManager, serviceId: string, fromHostId: string | null, network: GuestNetwork | null): Promise<void> {
    if (network?.mode === 'user' && fromHostId) await this.leases.releaseScope(m, serviceId, sshScope(fromHostId));
  }

  /** The relocation was rolled back: the new host's port goes. */
  async undo(manager: EntityManager, serviceId: string, toHostId: string | null): Promise<void> {
    if (toHostId) await this.leases.releaseScope(manager, serviceId, sshScope(toHostId));
  }
}
