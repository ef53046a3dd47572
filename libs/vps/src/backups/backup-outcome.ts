import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { ActivityLog, AppConfig, domainEvent, TransactionRunner } from '@app/core';
import type { InstanceBackupFailedEvent } from '../vps.events';
import type { SnapshotConsistency } from '../vps.types';
import { BackupCleanup } from './backup-cleanup';
import { BackupCounters } from './backup-counters';
import { BackupsRepository } from './backups.repository';

export interface BackupSubject {
  id: string;
  serviceId: string;
  serviceName: string;
  accountId: string;
  trigger: string;
}

export type BackupResult = { ok: true; sizeBytes: number; consistency: SnapshotConsistency } | { ok: false; code: string; message: string };

/**
 * Records how a backup ended, in one transaction: the row, its `instance.backup` activity entry,
 * and after a success the backups past BACKUP_RETENTION marked for deletion (deleted at once
 * after COMMIT); after a failure `instance.backup_failed`, which becomes a notification.
 */
@Injectable()
export class BackupOutcome {
  constructor(
    private readonly backups: BackupsRepository,
    private readonly tx: TransactionRunner,
    private readonly activity: ActivityLog,
    private readonly cleanup: BackupCleanup,
    private readonly counters: BackupCounters,
    private readonly config: AppConfig,
  ) {}

  async record(b: BackupSubject, result: BackupResult): Promise<boolean> {
    const recorded = await this.tx.run(async (m, publish) => {
      const outcome = result.ok
        ? ({ status: 'available', sizeBytes: result.sizeBytes, consistency: result.consistency } as const)
        : ({ status: 'failed', code: result.code, message: result.message } as const);
      if (!(await this.backups.finish(m, b.id, outcome))) return false;
      await this.log(m, b, result);
      if (result.ok) await this.backups.markExpired(m, b.serviceId, this.config.backups.retention);
      else {
        const error = { code: result.code, message: result.message };
        publish(domainEvent<InstanceBackupFailedEvent>('instance.backup_failed', b.accountId, { ...this.payload(b), error }));
      }
      return true;
    });
    if (result.ok) {
      this.counters.made++;
      this.counters.bytesStored += result.sizeBytes;
    } else this.counters.failed++;
    if (recorded && result.ok) await this.cleanup.deleteDue();
    return recorded;
  }

  /** A backup a sweep found interrupted: its entry and notice, as for any failure. */
  async interrupted(m: EntityManager, b: BackupSubject, publish: (event: InstanceBackupFailedEvent) => void, message: string) {
    const result = { ok: false as const, code: 'interrupted', message };
    await this.log(m, b, result);
    publish(domainEvent<InstanceBackupFailedEvent>('instance.backup_failed', b.accountId, { ...this.payload(b), error: result }));
    this.counters.failed++;
  }

  private payload(b: BackupSubject) {
    return { serviceId: b.serviceId, serviceName: b.serviceName, backupId: b.id };
  }

  private async log(m: EntityManager, b: BackupSubject, result: BackupResult): Promise<void> {
    await this.activity.record(m, {
      accountId: b.accountId,
      action: 'instance.backup',
      entity: { type: 'service', id: b.serviceId },
      status: result.ok ? 'succeeded' : 'failed',
      actor: { type: 'system', id: null, name: null },
      details: {
        backupId: b.id,
        trigger: b.trigger,
        ...(result.ok
          ? { sizeBytes: result.sizeBytes, consistency: result.consistency }
          : { errorCode: result.code, errorMessage: result.message }),
      },
    });
  }
}
