import { Injectable } from '@nestjs/common';
import { BackupCounters } from './backups/backup-counters';
import { ConsoleConnections } from './console/console-connections';
import { MachineReconciler } from './reconcile/machine-reconciler';

/** What the API's /metrics reads of this area, as this process saw it: its consoles and its reconciliation passes. */
@Injectable()
export class VpsGauges {
  constructor(
    private readonly consoles: ConsoleConnections,
    private readonly reconciler: MachineReconciler,
    private readonly backupCounters: BackupCounters,
  ) {}

  /** Backups this process made and failed, and the bytes it stored (issue 38). */
  get backups(): Readonly<BackupCounters> {
    return this.backupCounters;
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
