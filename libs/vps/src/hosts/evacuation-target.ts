import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { AppConfig } from '@app/core';
import type { GuestNetwork } from '../compute/compute-provider';
import { NetworkAllocator } from '../network/network-allocator';
import type { HostNeed, HostRow } from './host.entity';
import { HostsRepository } from './hosts.repository';
import { rankHosts } from './placement';
import { VpsEvacuationsRepository } from './vps-evacuations.repository';

/** Tries of another host after another transaction took the room of the one chosen (as placement does). */
const ATTEMPTS = 10;

/**
 * Where an evacuated VPS goes (issue 40): an enabled host of its region ranked by PLACEMENT_POLICY,
 * its room held by the same conditional UPDATE as a move's, in the caller's transaction. In user
 * networking the VPS's forwarded SSH port is kept when the new host has it free, else it gets one
 * of that host's; the old host's lease goes when the evacuation is settled.
 */
@Injectable()
export class EvacuationTarget {
  constructor(
    private readonly config: AppConfig,
    private readonly hosts: HostsRepository,
    private readonly network: NetworkAllocator,
    private readonly evacuations: VpsEvacuationsRepository,
  ) {}

  async reserve(m: EntityManager, region: string, need: HostNeed, fromHostId: string): Promise<HostRow | null> {
    const policy = this.config.hosts.placementPolicy;
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const ranked = rankHosts(await this.hosts.candidates(m, region, need, policy), need, policy).filter((h) => h.id !== fromHostId);
      if (!ranked.length) return null;
      for (const host of ranked.slice(0, 3)) if (await this.hosts.reserve(m, host.id, need)) return host;
    }
    return null;
  }

  /** The VPS's network on the new host (a bridge's addresses are the region's: unchanged). */
  async networkOn(m: EntityManager, serviceId: string, hostId: string, network: GuestNetwork | null): Promise<GuestNetwork | null> {
    if (network?.mode !== 'user') return network;
    if (await this.evacuations.leaseValue(m, serviceId, sshScope(hostId), String(network.sshPort))) return network;
    return this.network.allocate(m, serviceId, `host:${hostId}`);
  }
}

/** The lease scope of a host's forwarded SSH ports (NetworkAllocator's `ssh-port:host:<id>`). */
export const sshScope = (hostId: string): string => `ssh-port:host:${hostId}`;
