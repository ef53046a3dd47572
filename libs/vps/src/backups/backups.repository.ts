import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { isoText, pageOfRows, PageQuery, RowsPage, runSql, sqlFirst, sqlRows, inTransaction } from '@app/core';
import type { SnapshotConsistency } from '../vps.types';
import type { HostTarget } from '../hosts/host.entity';
import { HOST_OF_INSTANCE } from '../hosts/hosts.repository';

export type BackupStatus = 'running' | 'available' | 'failed';
export type BackupTrigger = 'schedule' | 'operator';

const COLUMNS = `id, service_id, status, trigger, storage_key, size_bytes::float8 AS size_bytes, consistency, error_code, error_message,
       ${isoText('created_at')} AS created_at, ${isoText('finished_at')} AS finished_at`;

export interface BackupRow {
  id: string;
  service_id: string;
  status: BackupStatus;
  trigger: BackupTrigger;
  storage_key: string;
  size_bytes: number | null;
  consistency: SnapshotConsistency | null;
  error_code: string | null;
  error_message: string | null;
  created_at: string;
  finished_at: string | null;
}

export interface BackupSchedule {
  enabledAt: string;
  nextRunAt: string;
}

/** What a clean-up removes: the object, and on the hypervisor the copy an export made. */
export interface BackupLeftover {
  id: string;
  serviceId: string;
  key: string;
  region: string | null;
  providerRef: string | null;
  /** The VPS's host, where its temporary copy lies; absent: its region's configured hypervisor. */
  host?: HostTarget | null;
}

/** All SQL on vps_backups and vps_backup_schedules. */
@Injectable()
export class BackupsRepository {
  constructor(private readonly dataSource: DataSource) {}

  async schedule(serviceId: string, manager?: EntityManager): Promise<BackupSchedule | null> {
    return sqlFirst<BackupSchedule>(
      manager ?? this.dataSource,
      `SELECT ${isoText('enabled_at')} AS "enabledAt", ${isoText('next_run_at')} AS "nextRunAt" FROM vps_backup_schedules WHERE service_id = $1`,
      [serviceId],
    );
  }

  /** Enabled from now, first due at `firstRun`; enabling twice keeps the first schedule. */
  async enable(m: EntityManager, serviceId: string, firstRun: Date): Promise<void> {
    await runSql(m, `INSERT INTO vps_backup_schedules (service_id, next_run_at) VALUES ($1, $2) ON CONFLICT (service_id) DO NOTHING`, [
      serviceId,
      firstRun,
    ]);
  }

  async disable(m: EntityManager, serviceId: string): Promise<void> {
    await runSql(m, `DELETE FROM vps_backup_schedules WHERE service_id = $1`, [serviceId]);
  }

  /** The VPSes due now, each moved to its slot a day later in the same statement (one run a day, whoever takes it). */
  async takeDue(limit: number): Promise<string[]> {
    const rows = await sqlRows<{ service_id: string }>(
      this.dataSource,
      `UPDATE vps_backup_schedules s SET next_run_at = s.next_run_at + interval '1 day' * greatest(1, ceil(extract(epoch FROM now() - s.next_run_at) / 86400))
        WHERE s.service_id IN (SELECT service_id FROM vps_backup_schedules WHERE next_run_at <= now() ORDER BY next_run_at LIMIT $1 FOR UPDATE SKIP LOCKED)
        RETURNING s.service_id`,
      [limit],
    );
    return rows.map((row) => row.service_id);
  }

  page(serviceId: string, query: PageQuery): Promise<RowsPage<BackupRow>> {
    return pageOfRows(
      this.dataSource,
      {
        table: 'vps_backups',
        columns: COLUMNS,
        where: `service_id = $1 AND status <> 'deleting'`,
        params: [serviceId],
        orderBy: 'created_at DESC, id DESC',
      },
      query,
    );
  }

  async findForService(serviceId: string, id: string, manager?: EntityManager): Promise<BackupRow | null> {
    return sqlFirst<BackupRow>(
      manager ?? this.dataSource,
      `SELECT ${COLUMNS} FROM vps_backups WHERE id = $1 AND service_id = $2 AND status <> 'deleting'`,
      [id, serviceId],
    );
  }

  /** A backup of this id was begun once (its row is there in whatever state). */
  async exists(m: EntityManager, id: string): Promise<boolean> {
    return (await sqlFirst<{ id: string }>(m, 'SELECT id FROM vps_backups WHERE id = $1', [id])) !== null;
  }

  /** A `running` row, unless one runs for the VPS already (null: the partial unique index said no). */
  async insertRunning(
    m: EntityManager,
    b: { id: string; serviceId: string; accountId: string; trigger: BackupTrigger; key: string },
  ): Promise<BackupRow | null> {
    return sqlFirst<BackupRow>(
      m,
      `INSERT INTO vps_backups (id, service_id, account_id, status, trigger, storage_key) VALUES ($1, $2, $3, 'running', $4, $5)
       ON CONFLICT (service_id) WHERE status = 'running' DO NOTHING RETURNING ${COLUMNS}`,
      [b.id, b.serviceId, b.accountId, b.trigger, b.key],
    );
  }

  /** The lease of a running backup: its process is alive. */
  async heartbeat(id: string): Promise<boolean> {
    const { count } = await runSql(this.dataSource, `UPDATE vps_backups SET heartbeat_at = now() WHERE id = $1 AND status = 'running'`, [
      id,
    ]);
    return count > 0;
  }

  /** Ends a running backup; false when it ended already (a sweep failed it meanwhile). */
  async finish(
    m: EntityManager,
    id: string,
    outcome:
      { status: 'available'; sizeBytes: number; consistency: SnapshotConsistency } | { status: 'failed'; code: string; message: string },
  ): Promise<boolean> {
    const ok = outcome.status === 'available';
    const { count } = await runSql(
      m,
      `UPDATE vps_backups SET status = $2, size_bytes = $3, consistency = $4, error_code = $5, error_message = $6, finished_at = now()
        WHERE id = $1 AND status = 'running'`,
      [
        id,
        outcome.status,
        ok ? outcome.sizeBytes : null,
        ok ? outcome.consistency : null,
        ok ? null : outcome.code.slice(0, 64),
        ok ? null : outcome.message.slice(0, 500),
      ],
    );
    return count > 0;
  }

  /**
   * Past retention: available backups beyond the newest `keep`, and failed ones older than the
   * newest available, marked `deleting` (no longer listed) and returned for their objects to go.
   */
  async markExpired(m: EntityManager, serviceId: string, keep: number): Promise<BackupLeftover[]> {
    return sqlRows<BackupLeftover>(
      m,
      `WITH ranked AS (
         SELECT id, status, created_at, row_number() OVER (PARTITION BY status ORDER BY created_at DESC, id DESC) AS n
           FROM vps_backups WHERE service_id = $1 AND status IN ('available', 'failed')),
       newest AS (SELECT max(created_at) AS at FROM ranked WHERE status = 'available')
       UPDATE vps_backups b SET status = 'deleting', delete_after = now()
         FROM ranked, newest
        WHERE b.id = ranked.id
          AND ((ranked.status = 'available' AND ranked.n > $2) OR (ranked.status = 'failed' AND ranked.created_at < newest.at))
       RETURNING b.id, b.service_id AS "serviceId", b.storage_key AS key, NULL::text AS region, NULL::text AS "providerRef"`,
      [serviceId, keep],
    );
  }

  /** Running backups whose process stopped moving them (no part for `staleSeconds`): failed, for their leftovers to go. */
  async failStale(staleSeconds: number): Promise<(BackupLeftover & { accountId: string; trigger: BackupTrigger })[]> {
    return sqlRows(
      this.dataSource,
      `UPDATE vps_backups b SET status = 'failed', error_code = 'interrupted', finished_at = now(),
              error_message = 'The backup was interrupted (its process stopped or the store stopped answering); the next one starts afresh.'
         FROM vps_instances i
        WHERE b.status = 'running' AND b.heartbeat_at < now() - $1::double precision * interval '1 second' AND i.service_id = b.service_id
       RETURNING b.id, b.service_id AS "serviceId", b.account_id AS "accountId", b.trigger, b.storage_key AS key, i.region,
                 i.provider_ref AS "providerRef", ${HOST_OF_INSTANCE}`,
      [staleSeconds],
    );
  }

  /** Of these ids (UUIDs), the backups that are not running, with where their VPS is (their hypervisor copy would be there). */
  async endedAmong(ids: string[]): Promise<BackupLeftover[]> {
    if (!ids.length) return [];
    return sqlRows<BackupLeftover>(
      this.dataSource,
      `SELECT b.id, b.service_id AS "serviceId", b.storage_key AS key, i.region, i.provider_ref AS "providerRef", ${HOST_OF_INSTANCE}
         FROM vps_backups b JOIN vps_instances i ON i.service_id = b.service_id
        WHERE b.id = ANY($1::uuid[]) AND b.status <> 'running'`,
      [ids],
    );
  }

  /** A terminated VPS: no more runs; its backups go after the grace period. */
  async retire(m: EntityManager, serviceId: string, graceHours: number): Promise<void> {
    await runSql(m, `DELETE FROM vps_backup_schedules WHERE service_id = $1`, [serviceId]);
    await runSql(
      m,
      `UPDATE vps_backups SET delete_after = now() + $2::double precision * interval '1 hour' WHERE service_id = $1 AND delete_after IS NULL`,
      [serviceId, graceHours],
    );
  }

  /** Backups whose time to go has come (retention, termination), oldest first. */
  async dueForDeletion(limit: number): Promise<BackupLeftover[]> {
    return sqlRows<BackupLeftover>(
      this.dataSource,
      `SELECT id, service_id AS "serviceId", storage_key AS key, NULL::text AS region, NULL::text AS "providerRef"
         FROM vps_backups WHERE delete_after <= now() AND status <> 'running' ORDER BY delete_after LIMIT $1`,
      [limit],
    );
  }

  /** The demo account's VPS of that name (demo data only). */
  async demoVps(m: EntityManager, accountId: string, name: string): Promise<string | null> {
    const row = await sqlFirst<{ id: string }>(
      m,
      `SELECT s.id FROM services s JOIN vps_instances i ON i.service_id = s.id WHERE s.account_id = $1 AND s.name = $2`,
      [accountId, name],
    );
    return row?.id ?? null;
  }

  /** A backup made yesterday by the schedule (demo data only). */
  async insertDemo(
    m: EntityManager,
    b: { id: string; serviceId: string; accountId: string; key: string; sizeBytes: number },
  ): Promise<void> {
    await runSql(
      m,
      `INSERT INTO vps_backups (id, service_id, account_id, status, trigger, storage_key, size_bytes, consistency, created_at, finished_at)
       VALUES ($1, $2, $3, 'available', 'schedule', $4, $5, 'filesystem', now() - interval '1 day', now() - interval '1 day' + interval '3 minutes')`,
      [b.id, b.serviceId, b.accountId, b.key, b.sizeBytes],
    );
  }

  /** A backup whose object is gone: its row, and the key the delete trigger kept (nothing is left to delete). */
  async delete(id: string): Promise<void> {
    await inTransaction(this.dataSource, async (m) => {
      const gone = await sqlFirst<{ key: string }>(m, `DELETE FROM vps_backups WHERE id = $1 RETURNING storage_key AS key`, [id]);
      if (gone) await this.forgetOrphan(gone.key, m);
    });
  }

  /** Keys of backup rows deleted with their account (by cascade), whose objects are still to go; oldest first. */
  async orphans(limit: number): Promise<string[]> {
    const rows = await sqlRows<{ key: string }>(
      this.dataSource,
      `SELECT storage_key AS key FROM vps_backup_orphans ORDER BY orphaned_at LIMIT $1`,
      [limit],
    );
    return rows.map((row) => row.key);
  }

  async forgetOrphan(key: string, manager?: EntityManager): Promise<void> {
    await runSql(manager ?? this.dataSource, `DELETE FROM vps_backup_orphans WHERE storage_key = $1`, [key]);
  }
}
