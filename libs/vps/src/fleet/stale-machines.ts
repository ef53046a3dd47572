import { Injectable, Logger } from '@nestjs/common';
import { ComputeProvider } from '../compute/compute-provider';
import { MachineRelocator } from '../compute/machine-relocator';
import type { HostState } from '../hosts/host.entity';
import { VpsRelocationsRepository } from './relocation/vps-relocations.repository';

/**
 * What an evacuation left on the old host: it did not answer then, so the domain and
 * disks of each VPS made again elsewhere (a relocation from a backup or an image) are still there. As soon as it answers (the health check,
 * every pass until done) they are powered off and removed, never started: the VPS records another
 * host, so nothing of the API starts a domain there. Another deployment's domain stays (deployments may share a host).
 */
@Injectable()
export class StaleMachines {
  private readonly logger = new Logger('StaleMachines');

  constructor(
    private readonly relocations: VpsRelocationsRepository,
    private readonly compute: ComputeProvider,
    private readonly relocator: MachineRelocator,
  ) {}

  /** Returns how many were removed; one that fails is left for the next pass. */
  async sweep(host: { id: string; name: string; uri: string; state: HostState }): Promise<number> {
    let removed = 0;
    for (const stale of await this.relocations.stale(host.id)) {
      const ref = { serviceId: stale.serviceId, providerRef: stale.providerRef, region: stale.region, host: { ...host, vncListen: null } };
      try {
        // A disk on shared storage is the VPS's own, run from the new host: only the stale domain goes.
        await (stale.source === 'disk' ? this.relocator.removeStale(ref) : this.compute.destroyMachine(ref));
        await this.relocations.staleRemoved(stale.id);
        removed++;
        this.logger.warn(`The stale machine of evacuated VPS ${stale.serviceId} was removed from ${host.name}`);
      } catch (err) {
        this.logger.error(
          `The stale machine of evacuated VPS ${stale.serviceId} on ${host.name} is left for the next pass: ${(err as Error).message}`,
        );
      }
    }
    return removed;
  }
}
