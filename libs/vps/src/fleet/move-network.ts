import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { AppConfig } from '@app/core';
import { NetworkAllocator } from '../instances/network/network-allocator';
import { NetworkLeasesRepository } from '../instances/network/network-leases.repository';
import { VpsInstancesRepository } from '../instances/vps-instances.repository';

/** The lease scope of a host's forwarded SSH ports (NetworkAllocator's `ssh-port:host:<id>`). */
export const sshScope = (hostId: string): string => `ssh-port:host:${hostId}`;

/**
 * A moving VPS's forwarded SSH port (user networking): each hypervisor forwards its own
 * ports (leases scoped `ssh-port:host:<id>`), so the move leases one on the new host, the same
 * number when it is free there; the old host's goes when the move settles, the new one's when it
 * is rolled back. Bridged VPSes keep their addresses: nothing to do.
 */
@Injectable()
export class MoveNetwork {
  constructor(
    private readonly config: AppConfig,
    private readonly leases: NetworkLeasesRepository,
    private readonly allocator: NetworkAllocator,
    private readonly instances: VpsInstancesRepository,
  ) {}

  /** In the transaction that holds the room: the port leased on the new host, null without one. */
  async lease(manager: EntityManager, serviceId: string, fromHostId: string, toHostId: string): Promise<number | null> {
    if (this.config.network.mode !== 'user' || !(await this.leases.holds(manager, serviceId, sshScope(fromHostId)))) return null;
    const same = await this.leases.carry(manager, serviceId, sshScope(fromHostId), sshScope(toHostId));
    if (same !== null) return Number(same);
    const network = await this.allocator.allocate(manager, serviceId, `host:${toHostId}`);
    return network.mode === 'user' ? network.sshPort : null;
  }

  /** The machine is on the new host: the old host's port goes, the record shows the new one. */
  async settle(manager: EntityManager, serviceId: string, fromHostId: string | null, port: number | null): Promise<void> {
    if (port === null) return;
    if (fromHostId) await this.leases.releaseScope(manager, serviceId, sshScope(fromHostId));
    await this.instances.setSshPort(manager, serviceId, port);
  }

  /** The move was rolled back: the new host's port goes. */
  async undo(manager: EntityManager, serviceId: string, toHostId: string | null, port: number | null): Promise<void> {
    if (port !== null && toHostId) await this.leases.releaseScope(manager, serviceId, sshScope(toHostId));
  }
}
