import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { AppConfig, Problem } from '@app/core';
import type { HostNeed, HostRow, HostTarget } from './host.entity';
import { HostsRepository } from './hosts.repository';
import { rankHosts } from './placement';

/** Tries of another host after another transaction took the room of the one chosen. */
const ATTEMPTS = 10;

/**
 * Chooses a new VPS's host and takes its capacity in the caller's transaction (the one
 * that records the VPS): the ranking is PLACEMENT_POLICY's, the check is the database's
 * (HostsRepository.take), so a replica that lost the race tries the next host. A region with no
 * host in the table keeps its hypervisor of the configuration (null).
 */
@Injectable()
export class HostPlacement {
  constructor(
    private readonly config: AppConfig,
    private readonly hosts: HostsRepository,
  ) {}

  async place(manager: EntityManager, serviceId: string, region: string, need: HostNeed): Promise<HostTarget | null> {
    if (!(await this.hosts.regionHasHosts(manager, region))) return null;
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const policy = this.config.hosts.placementPolicy;
      const ranked = rankHosts(await this.hosts.candidates(manager, region, need, policy), need, policy);
      if (!ranked.length) break;
      for (const host of ranked.slice(0, 3)) {
        const taken = await this.hosts.take(manager, host.id, serviceId, need);
        if (taken) return taken;
      }
    }
    throw new Problem(
      409,
      'no_capacity',
      `No enabled host of region ${region} has room for ${need.vcpus} vCPUs, ${need.memoryMb} MB of memory and ${need.diskGb} GB of disk.`,
    );
  }

  /**
   * Holds room for a moving VPS on the best enabled host of its region other than its own, by the
   * same ranking as a new VPS's (`host:drain`); null when none has room.
   */
  async reserveElsewhere(manager: EntityManager, region: string, need: HostNeed, fromHostId: string): Promise<HostRow | null> {
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const policy = this.config.hosts.placementPolicy;
      const others = (await this.hosts.candidates(manager, region, need, policy, 9)).filter((host) => host.id !== fromHostId);
      const ranked = rankHosts(others, need, policy);
      if (!ranked.length) return null;
      for (const host of ranked.slice(0, 3)) if (await this.hosts.reserve(manager, host.id, need)) return host;
    }
    return null;
  }

  /** Holds room for a moving VPS on the host the operator named; false when it is not enabled or has none. */
  reserveOn(manager: EntityManager, hostId: string, need: HostNeed): Promise<boolean> {
    return this.hosts.reserve(manager, hostId, need);
  }

  /** What the VPS took of its host (null: it runs on its region's configured hypervisor). */
  allocationOf(manager: EntityManager, serviceId: string): ReturnType<HostsRepository['allocationOf']> {
    return this.hosts.allocationOf(manager, serviceId);
  }

  /** What a terminated VPS took goes back to its host. */
  release(manager: EntityManager, serviceId: string): Promise<void> {
    return this.hosts.release(manager, serviceId);
  }
}
