import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { isoText, PageQuery, poolQuery, runSql, sqlFirst, sqlRows } from '@app/core';
import type { VolumeActionStatus, VolumeActionType, VolumeState } from './volume.types';

/** A volume as its service shows it and its actions decide on it. */
export interface VolumeRow {
  id: string;
  region: string;
  sizeGb: number;
  state: VolumeState;
  attachedTo: string | null;
  /** Its data was deleted (terminated, after the grace period). */
  purged: boolean;
}

export interface VolumeActionRow {
  id: string;
  serviceId: string;
  type: VolumeActionType;
  status: VolumeActionStatus;
  targetServiceId: string | null;
  sizeGb: number | null;
  errorCode: string | null;
  errorMessage: string | null;
  /** What the backend or hypervisor said, for operators only (never in VolumeActionResponse). */
  errorDetail: string | null;
  progress: number;
  step: string | null;
  startedAt: string;
  finishedAt: string | null;
}

/** A volume action's step before its job takes it (progress 0). */
const QUEUED_STEP = 'waiting to begin';

/** What an attach checks of the VPS it names: the caller's, a VPS, live, in which region, with how many volumes. */
export interface AttachTarget {
  type: string;
  status: string;
  region: string | null;
  volumes: number;
}

const VOLUME = `v.service_id AS id, v.region, v.size_gb AS "sizeGb", v.state, v.attached_to AS "attachedTo", v.purged_at IS NOT NULL AS purged`;
const ACTION = `a.id, a.service_id AS "serviceId", a.type, a.status, a.target_service_id AS "targetServiceId", a.size_gb AS "sizeGb",
  a.error_code AS "errorCode", a.error_message AS "errorMessage", a.error_detail AS "errorDetail", a.progress, a.step, ${isoText('a.started_at')} AS "startedAt", ${isoText('a.finished_at')} AS "finishedAt"`;

@Injectable()
export class VolumesRepository {
  constructor(private readonly dataSource: DataSource) {}

  async insertMany(manager: EntityManager, ids: string[], region: string, sizeGb: number): Promise<void> {
    await runSql(manager, `INSERT INTO volumes (service_id, region, size_gb) SELECT unnest($1::uuid[]), $2, $3`, [ids, region, sizeGb]);
  }

  summaries(serviceIds: string[], manager?: EntityManager): Promise<VolumeRow[]> {
    return poolQuery<VolumeRow>(manager ?? this.dataSource, `SELECT ${VOLUME} FROM volumes v WHERE v.service_id = ANY($1::uuid[])`, [
      serviceIds,
    ]);
  }

  find(serviceId: string, manager?: EntityManager): Promise<VolumeRow | null> {
    return sqlFirst<VolumeRow>(manager ?? this.dataSource, `SELECT ${VOLUME} FROM volumes v WHERE v.service_id = $1`, [serviceId]);
  }

  /** The volume's row under its lock; take the service row's lock first (ServiceOwnership), as every service change does. */
  lock(manager: EntityManager, serviceId: string): Promise<VolumeRow | null> {
    return sqlFirst<VolumeRow>(manager, `SELECT ${VOLUME} FROM volumes v WHERE v.service_id = $1 FOR UPDATE`, [serviceId]);
  }

  /** The VPS an attach names, if it is the account's, with the volumes it has or is getting. */
  attachTarget(manager: EntityManager, accountId: string, vpsId: string): Promise<AttachTarget | null> {
    return sqlFirst<AttachTarget>(
      manager,
      `SELECT s.type, s.status, i.region,
              (SELECT count(*)::int FROM volumes v WHERE v.attached_to = s.id) AS volumes
         FROM services s LEFT JOIN vps_instances i ON i.service_id = s.id
        WHERE s.id = $1 AND s.account_id = $2`,
      [vpsId, accountId],
    );
  }

  async update(
    manager: EntityManager,
    serviceId: string,
    change: { state: VolumeState; attachedTo?: string | null; sizeGb?: number },
  ): Promise<void> {
    await runSql(
      manager,
      `UPDATE volumes SET state = $2,
              attached_to = CASE WHEN $3 THEN $4::uuid ELSE attached_to END,
              size_gb = coalesce($5, size_gb), updated_at = now()
        WHERE service_id = $1`,
      [serviceId, change.state, change.attachedTo !== undefined, change.attachedTo ?? null, change.sizeGb ?? null],
    );
  }

  /** The volumes on a VPS, oldest attachment first: what `instance.volumes` shows. */
  onVps(vpsIds: string[], manager?: EntityManager): Promise<(VolumeRow & { vpsId: string; name: string })[]> {
    return sqlRows(
      manager ?? this.dataSource,
      `SELECT ${VOLUME}, v.attached_to AS "vpsId", s.name FROM volumes v JOIN services s ON s.id = v.service_id
        WHERE v.attached_to = ANY($1::uuid[]) ORDER BY v.updated_at, v.service_id`,
      [vpsIds],
    );
  }

  /** A terminated VPS's machine is gone: its volumes are detached (their data stays). */
  detachAllFrom(manager: EntityManager, vpsId: string): Promise<{ id: string }[]> {
    return sqlRows(
      manager,
      `UPDATE volumes SET state = 'detached', attached_to = NULL, updated_at = now() WHERE attached_to = $1 RETURNING service_id AS id`,
      [vpsId],
    );
  }

  async insertAction(
    manager: EntityManager,
    serviceId: string,
    type: VolumeActionType,
    params: { targetServiceId?: string | null; sizeGb?: number },
  ): Promise<VolumeActionRow> {
    const row = await sqlFirst<{ id: string }>(
      manager,
      `INSERT INTO volume_actions (service_id, type, target_service_id, size_gb, step) VALUES ($1, $2, $3, $4, $5) RETURNING id`,
      [serviceId, type, params.targetServiceId ?? null, params.sizeGb ?? null, QUEUED_STEP],
    );
    return (await this.action(row!.id, manager))!;
  }

  action(actionId: string, manager?: EntityManager): Promise<VolumeActionRow | null> {
    return sqlFirst<VolumeActionRow>(manager ?? this.dataSource, `SELECT ${ACTION} FROM volume_actions a WHERE a.id = $1`, [actionId]);
  }

  actionOfService(serviceId: string, actionId: string): Promise<VolumeActionRow | null> {
    return sqlFirst<VolumeActionRow>(this.dataSource, `SELECT ${ACTION} FROM volume_actions a WHERE a.id = $1 AND a.service_id = $2`, [
      actionId,
      serviceId,
    ]);
  }

  async pageOfActions(serviceId: string, { page, pageSize }: PageQuery): Promise<{ rows: VolumeActionRow[]; total: number }> {
    const [rows, count] = await Promise.all([
      sqlRows<VolumeActionRow>(
        this.dataSource,
        `SELECT ${ACTION} FROM volume_actions a WHERE a.service_id = $1 ORDER BY a.started_at DESC, a.id DESC LIMIT $2 OFFSET $3`,
        [serviceId, pageSize, (page - 1) * pageSize],
      ),
      sqlFirst<{ n: number }>(this.dataSource, `SELECT count(*)::int AS n FROM volume_actions WHERE service_id = $1`, [serviceId]),
    ]);
    return { rows, total: count?.n ?? 0 };
  }

  /** Running actions older than this that a process may have left (its replica died). */
  async runningActionIds(olderThanMs: number): Promise<string[]> {
    const rows = await sqlRows<{ id: string }>(
      this.dataSource,
      `SELECT id FROM volume_actions WHERE status = 'running' AND started_at < clock_timestamp() - $1 * interval '1 millisecond'`,
      [olderThanMs],
    );
    return rows.map((row) => row.id);
  }

  /** Where a running action stands; its progress never goes back, and stays below 100 until it has succeeded. */
  async setStep(actionId: string, progress: number, step: string): Promise<void> {
    await runSql(
      this.dataSource,
      `UPDATE volume_actions SET progress = GREATEST(progress, LEAST(99, $2::int)), step = $3 WHERE id = $1 AND status = 'running'`,
      [actionId, Math.round(progress), step.slice(0, 200)],
    );
  }

  /** Ends a running action once (a second job for it finds it ended and does nothing). */
  async finishAction(
    manager: EntityManager,
    actionId: string,
    error: { code: string; message: string; detail?: string | null } | null,
  ): Promise<boolean> {
    const rows = await sqlRows(
      manager,
      `UPDATE volume_actions SET status = $2, error_code = $3, error_message = $4, error_detail = $5, finished_at = clock_timestamp(),
              progress = CASE WHEN $6 THEN progress ELSE 100 END, step = NULL
        WHERE id = $1 AND status = 'running' RETURNING id`,
      [
        actionId,
        error ? 'failed' : 'succeeded',
        error?.code ?? null,
        error?.message ?? null,
        error?.detail?.slice(0, 2000) ?? null,
        !!error,
      ],
    );
    return rows.length > 0;
  }

  async schedulePurge(manager: EntityManager, serviceId: string, afterHours: number): Promise<void> {
    await runSql(manager, `UPDATE volumes SET purge_after = now() + $2 * interval '1 hour' WHERE service_id = $1 AND purged_at IS NULL`, [
      serviceId,
      afterHours,
    ]);
  }

  duePurges(): Promise<VolumeRow[]> {
    return sqlRows<VolumeRow>(
      this.dataSource,
      `SELECT ${VOLUME} FROM volumes v WHERE v.purge_after <= now() AND v.purged_at IS NULL ORDER BY v.purge_after LIMIT 100`,
    );
  }

  async markPurged(serviceId: string): Promise<void> {
    await runSql(this.dataSource, `UPDATE volumes SET purged_at = now() WHERE service_id = $1`, [serviceId]);
  }

  /** Every volume id recorded, with whether its data should still exist: what reconciliation compares the backend with. */
  async recorded(): Promise<Map<string, { live: boolean; sizeGb: number; region: string }>> {
    const rows = await sqlRows<{ id: string; live: boolean; sizeGb: number; region: string }>(
      this.dataSource,
      `SELECT service_id AS id, purged_at IS NULL AS live, size_gb AS "sizeGb", region FROM volumes`,
    );
    return new Map(rows.map((row) => [row.id, row]));
  }
}
