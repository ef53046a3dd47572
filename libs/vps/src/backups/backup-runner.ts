import { randomUUID } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { LeaseStore, takeLease, TransactionRunner } from '@app/core';
import { ComputeProvider, DiskExport, instanceRef } from '../compute/compute-provider';
import { InstanceActionsRepository } from '../actions/instance-actions.repository';
import { isSettled } from '../instances/power-state/power-state-machine';
import { isVps, VpsStates } from '../instances/vps-states';
import { backupKey, BackupStore } from './backup-store';
import { BackupOutcome, BackupSubject } from './backup-outcome';
import { BackupsRepository, BackupTrigger } from './backups.repository';

/** A running backup's row is renewed every third of this while it runs; one not renewed for this long was interrupted. */
export const BACKUP_LEASE_SECONDS = 60;

export type BackupRunResult = { backupId: string; status: 'available' | 'failed'; error?: string } | { skipped: string };

/**
 * One backup of one VPS: a `running` row under a lease (core's, renewed while the copy
 * runs), the disk copied by the compute port and streamed into the BackupStore, then the outcome
 * recorded. A process that dies leaves the row `running` with a lease that runs out: the periodic
 * sweep fails it and cleans what it left, and the next run starts afresh.
 */
@Injectable()
export class BackupRunner {
  private readonly logger = new Logger('Backups');

  constructor(
    private readonly backups: BackupsRepository,
    private readonly store: BackupStore,
    private readonly compute: ComputeProvider,
    private readonly states: VpsStates,
    private readonly actions: InstanceActionsRepository,
    private readonly tx: TransactionRunner,
    private readonly outcome: BackupOutcome,
  ) {}

  /** `id`: the backup's, given by a job that may run again (a second run with it makes nothing). */
  async run(serviceId: string, trigger: BackupTrigger, id: string = randomUUID()): Promise<BackupRunResult> {
    const begun = await this.tx.run(async (m) => {
      const service = await this.states.lockById(m, serviceId);
      if (await this.backups.exists(m, id)) return 'this backup was begun already';
      if (!isVps(service)) return 'not a VPS';
      if (service.status !== 'active') return `the service is ${service.status}`;
      if (!isSettled(service.powerState)) return `the machine is ${service.powerState}`;
      // A rebuild or restore changes the disk under the copy: the backup waits for the next run.
      if (await this.actions.hasRunning(m, serviceId)) return 'another action runs on the machine';
      const row = await this.backups.insertRunning(m, {
        id,
        serviceId,
        accountId: service.accountId,
        trigger,
        key: backupKey(serviceId, id),
      });
      if (!row) return 'a backup of this VPS is running';
      const subject: BackupSubject = { id, serviceId, serviceName: service.name, accountId: service.accountId, trigger };
      return { subject, key: row.storage_key, ref: instanceRef(serviceId, service) };
    });
    if (typeof begun === 'string') return { skipped: begun };
    const lease = await takeLease(this.leases, id, BACKUP_LEASE_SECONDS);
    let disk: DiskExport | null = null;
    try {
      disk = await this.compute.exportDisk(begun.ref, id);
      const sizeBytes = await this.store.put(begun.key, disk.stream);
      await disk.release();
      // Its row went meanwhile (the account deleted, or a sweep took it for interrupted): no object without a row.
      if (!(await this.outcome.record(begun.subject, { ok: true, sizeBytes, consistency: disk.consistency }))) {
        await this.store.remove(begun.key).catch(() => undefined);
        return { backupId: id, status: 'failed', error: 'The backup ended after its record was gone.' };
      }
      return { backupId: id, status: 'available' };
    } catch (err) {
      const { code, message } = errorOf(err);
      this.logger.warn(`Backup ${id} of ${serviceId} failed: ${message}`);
      await disk?.stream.destroy();
      await disk?.release().catch(() => undefined);
      await this.store.abandon(begun.key).catch(() => undefined);
      await this.outcome.record(begun.subject, { ok: false, code, message });
      return { backupId: id, status: 'failed', error: message };
    } finally {
      lease?.end();
    }
  }

  /** The row's heartbeat is the lease: taken by the run that inserted it, renewed while it runs. */
  private readonly leases: LeaseStore<string, string> = {
    tryTake: async (id) => ((await this.backups.heartbeat(id)) ? id : null),
    renew: async (id) => void (await this.backups.heartbeat(id)),
    release: () => Promise.resolve(),
  };
}

function errorOf(err: unknown): { code: string; message: string } {
  const code = (err as { code?: unknown }).code;
  const message = err instanceof Error ? err.message : String(err);
  return { code: typeof code === 'string' && /^[a-z_]{1,64}$/.test(code) ? code : 'backup_failed', message };
}
