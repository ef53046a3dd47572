import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { AppConfig, Problem } from '@app/core';
import type { HostNeed, HostTarget } from './host.entity';
import { HostsRepository } from './hosts.repository';
import { rankHosts } from './placement';

/** Tries of another host after another transaction took the room of the one chosen. */
const ATTEMPTS = 10;

/**
 * Chooses a new VPS's host (issue 40) and takes its capacity in the caller's transaction (the one
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

  /** What a terminated VPS took goes back to its host. */
  release(manager: EntityManager, serviceId: string): Promise<void> {
    return this.hosts.release(manager, serviceId);
  }
}
