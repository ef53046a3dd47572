import { Injectable } from '@nestjs/common';
import { BackupCounters } from './backups/backup-counters';
import { ConsoleConnections } from './console/console-connections';
import { HostsRepository } from './hosts/hosts.repository';
import { HostListing, listingOf } from './fleet/hosts.service';
import { VpsRelocationsRepository } from './fleet/relocation/vps-relocations.repository';
import { MachineReconciler } from './instances/reconcile/machine-reconciler';

/** What the API's /metrics reads of this area: this process's consoles and reconciliation passes, and the hosts' capacity (the database's). */
@Injectable()
export class VpsGauges {
  constructor(
    private readonly consoles: ConsoleConnections,
    private readonly reconciler: MachineReconciler,
    private readonly backupCounters: BackupCounters,
    private readonly hostRows: HostsRepository,
    private readonly relocationRows: VpsRelocationsRepository,
  ) {}

  /** Backups this process made and failed, and the bytes it stored. */
  get backups(): Readonly<BackupCounters> {
    return this.backupCounters;
  }

  /** Every host with its capacity used and free. */
  async hosts(): Promise<HostListing[]> {
    return (await this.hostRows.list()).map(listingOf);
  }

  /** Moves of VPSes between hosts (relocations that copy the disk) that ended, by outcome (every replica reports the database's). */
  moves(): ReturnType<VpsRelocationsRepository['moveCounts']> {
    return this.relocationRows.moveCounts();
  }

  get console(): { open: number; bytesToClient: number; bytesFromClient: number } {
    const { openCount: open, bytesToClient, bytesFromClient } = this.consoles;
    return { open, bytesToClient, bytesFromClient };
  }

  /** Orphans seen by the last pass; orphans removed and machines missing since start. */
  get reconciliation(): Readonly<MachineReconciler['counts']> {
    return this.reconciler.counts;
  }
}
