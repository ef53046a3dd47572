import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { JobQueue } from '@app/core';
import { ComputeProvider, ComputeProviderError, instanceRef } from '../compute/compute-provider';
import { GuestFirewall, GuestFirewalls } from '../compute/guest-firewalls';
import { VpsInstancesRepository } from '../instances/vps-instances.repository';
import { guestRules } from './firewall-rules';
import { FirewallsRepository, ServiceFirewall } from './firewalls.repository';

export const FIREWALL_SYNC_JOB = 'firewall-sync';
const MAX_ROUNDS = 5;

/**
 * Brings one VPS's hypervisor to the firewalls applied to it, as a durable job sent in the
 * transaction of the change (apply, remove, new rules). After enforcing, it reads again: a change
 * made meanwhile (or a run on another replica that enforced an older set after this one) is
 * enforced once more, so the last run to finish always leaves the newest set in place.
 */
@Injectable()
export class FirewallSyncJob implements OnModuleInit {
  private readonly logger = new Logger('Firewalls');

  constructor(
    private readonly firewalls: FirewallsRepository,
    private readonly instances: VpsInstancesRepository,
    private readonly compute: ComputeProvider,
    private readonly guestFirewalls: GuestFirewalls,
    private readonly jobs: JobQueue,
  ) {}

  onModuleInit(): void {
    this.guestFirewalls.register(async (serviceId) => (await this.firewalls.firewallsOf(serviceId)).map(toGuest));
    this.jobs.work<{ serviceId: string }>(FIREWALL_SYNC_JOB, (job) => this.run(job.serviceId), { concurrency: 2 });
  }

  async enqueue(manager: EntityManager, serviceIds: string[]): Promise<void> {
    for (const serviceId of serviceIds) {
      await this.jobs.send(
        FIREWALL_SYNC_JOB,
        { serviceId },
        { retryLimit: 6, retryDelaySeconds: 2, retryBackoff: true, coalesceKey: serviceId },
        manager,
      );
    }
  }

  async run(serviceId: string): Promise<void> {
    let seen = await this.firewalls.firewallsOf(serviceId);
    for (let round = 0; round < MAX_ROUNDS; round++) {
      try {
        await this.enforce(serviceId, seen);
      } catch (err) {
        await this.firewalls.markSynced(serviceId, seen, 'failed');
        this.logger.warn(`Firewalls of ${serviceId} not enforced: ${(err as Error).message}`);
        if (err instanceof ComputeProviderError && !err.retryable) return;
        throw err;
      }
      const now = await this.firewalls.firewallsOf(serviceId);
      if (sameSet(seen, now)) return this.firewalls.markSynced(serviceId, seen, 'applied');
      seen = now;
    }
    throw new Error(`The firewalls of ${serviceId} kept changing while they were enforced; tried again later`);
  }

  private async enforce(serviceId: string, firewalls: ServiceFirewall[]): Promise<void> {
    const machine = await this.instances.machineOf(serviceId);
    if (!machine) return;
    const network = await this.instances.networkOf(serviceId);
    await this.compute.applyFirewalls(instanceRef(serviceId, machine), network, firewalls.map(toGuest));
  }
}

function toGuest(firewall: ServiceFirewall): GuestFirewall {
  return { id: firewall.firewallId, rules: guestRules(firewall.rules) };
}

function sameSet(a: ServiceFirewall[], b: ServiceFirewall[]): boolean {
  const key = (list: ServiceFirewall[]) => list.map((f) => `${f.firewallId}:${f.generation}`).join(',');
  return key(a) === key(b);
}
