import { randomUUID } from 'node:crypto';
import { Injectable, OnModuleInit } from '@nestjs/common';
import { JobQueue, TransactionRunner } from '@app/core';
import { VpsStates } from '../instances/vps-states';
import { BackupCleanup } from './backup-cleanup';
import { BackupOutcome } from './backup-outcome';
import { BACKUP_LEASE_SECONDS, BackupRunner } from './backup-runner';
import { BackupsRepository, BackupTrigger } from './backups.repository';

export const BACKUP_JOB = 'vps-backup';
/** How often due backups are looked for (a VPS's slot is a minute of the day). */
const SCHEDULE_SECONDS = 60;
/** Backups started per pass, at most: the rest are due still, for the next pass. */
const DUE_PER_PASS = 100;
/** Backups one process copies at once (each reads a whole disk). */
const CONCURRENCY = 2;
/**
 * A backup job still active this long is taken as lost with its process and run again (pg-boss
 * looks every two minutes). The job's own part is short: it writes the backup's `running` row,
 * whose lease then covers the copy (a dead process's backup is failed by the pass). A run again
 * while the first still copies, or after it ended, makes nothing: the job carries its backup's
 * id, and a run that finds that row stops.
 */
const JOB_EXPIRE_SECONDS = 60;
const JOB_RETRIES = { retryLimit: 3, retryDelaySeconds: 10 };

interface BackupJobData {
  serviceId: string;
  trigger: BackupTrigger;
  /** Absent from jobs queued before backups carried their id. */
  backupId?: string;
}

/**
 * Backups on the job queue (docs/decisions/jobs.md): one `vps-backup` job per backup, and every
 * minute on one replica a pass that fails interrupted backups (their lease ran out) and cleans
 * what they left, queues the VPSes whose daily slot came, and deletes backups whose time has come.
 */
@Injectable()
export class BackupsJob implements OnModuleInit {
  constructor(
    private readonly runner: BackupRunner,
    private readonly backups: BackupsRepository,
    private readonly cleanup: BackupCleanup,
    private readonly outcome: BackupOutcome,
    private readonly states: VpsStates,
    private readonly tx: TransactionRunner,
    private readonly jobs: JobQueue,
  ) {}

  onModuleInit(): void {
    this.jobs.work<BackupJobData>(BACKUP_JOB, (job) => this.runner.run(job.serviceId, job.trigger, job.backupId).then(() => undefined), {
      concurrency: CONCURRENCY,
    });
    this.jobs.every('vps-backups-schedule', SCHEDULE_SECONDS, () => this.pass(), { atStart: true });
  }

  /** Queues one backup of the VPS now (the operator's `backup:run`). */
  async enqueue(serviceId: string, trigger: BackupTrigger): Promise<void> {
    // A backup that failed is recorded as failed and not made again; only a job whose process
    // died before it ended is run again, and its backup's id keeps that run from making a second.
    const data: BackupJobData = { serviceId, trigger, backupId: randomUUID() };
    await this.jobs.send(BACKUP_JOB, data, { ...JOB_RETRIES, expireInSeconds: JOB_EXPIRE_SECONDS });
  }

  async pass(): Promise<void> {
    await this.failInterrupted();
    for (const serviceId of await this.backups.takeDue(DUE_PER_PASS)) await this.enqueue(serviceId, 'schedule');
    await this.cleanup.deleteDue();
    await this.cleanup.releaseLeftCopies();
  }

  /** Backups whose process died (no renewal of their lease): failed, their upload and copy removed, the customer told. */
  async failInterrupted(): Promise<number> {
    const stale = await this.backups.failStale(BACKUP_LEASE_SECONDS);
    for (const backup of stale) {
      await this.cleanup.abandon(backup);
      await this.tx.run(async (m, publish) => {
        const service = await this.states.lockById(m, backup.serviceId);
        const subject = {
          id: backup.id,
          serviceId: backup.serviceId,
          serviceName: service?.name ?? '',
          accountId: backup.accountId,
          trigger: backup.trigger,
        };
        await this.outcome.interrupted(
          m,
          subject,
          publish,
          'The backup was interrupted before it was complete; the next one starts afresh.',
        );
      });
    }
    return stale.length;
  }
}
