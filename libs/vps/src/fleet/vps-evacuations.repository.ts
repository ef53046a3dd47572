import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { runSql, sqlFirst, sqlRows } from '@app/core';
import type { GuestBoot, GuestNetwork, GuestSeed } from '../compute/compute-provider';
import type { PowerState } from '../vps.types';

export type EvacuationStatus = 'running' | 'restored' | 'rebuilt' | 'failed';

/** Where the new root disk comes from, as recorded: the latest backup (with the seed), or the image. */
export type PlannedDisk = { from: 'backup'; backup: LatestBackup; seed: GuestSeed } | { from: 'image'; boot: GuestBoot; imageName: string };

/** What a running evacuation decided, kept so a second run finishes it the same way. */
export interface EvacuationPlan {
  network: GuestNetwork | null;
  /** The power state the VPS had on the dead host (its last known): running ones are started. */
  powerState: PowerState;
  disk: PlannedDisk;
}

export interface EvacuationRow {
  id: string;
  serviceId: string;
  toHostId: string | null;
  status: EvacuationStatus;
  backupId: string | null;
  plan: EvacuationPlan | null;
}

export interface LatestBackup {
  id: string;
  key: string;
  sizeBytes: number;
  createdAt: string;
}

const ROW = `id, service_id AS "serviceId", to_host_id AS "toHostId", status, backup_id AS "backupId", plan`;

/** All SQL of `host:evacuate`: vps_evacuations, and what it reads and moves of a VPS. */
@Injectable()
export class VpsEvacuationsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** The VPSes still recorded on the host, not terminated: the ones an evacuation has left to do. */
  async onHost(hostId: string): Promise<string[]> {
    const rows = await sqlRows<{ id: string }>(
      this.dataSource,
      `SELECT i.service_id AS id FROM vps_instances i JOIN services s ON s.id = i.service_id
        WHERE i.host_id = $1 AND s.status <> 'terminated' ORDER BY s.created_at, s.id`,
      [hostId],
    );
    return rows.map((row) => row.id);
  }

  find(m: EntityManager | undefined, serviceId: string, fromHostId: string): Promise<EvacuationRow | null> {
    return sqlFirst<EvacuationRow>(m ?? this.dataSource, `SELECT ${ROW} FROM vps_evacuations WHERE service_id = $1 AND from_host_id = $2`, [
      serviceId,
      fromHostId,
    ]);
  }

  /** The evacuation of this VPS off this host is under way toward `toHostId` (a failed one is tried again). */
  async begin(
    m: EntityManager,
    e: { serviceId: string; fromHostId: string; toHostId: string; backupId: string | null; plan: EvacuationPlan },
  ): Promise<EvacuationRow> {
    return (await sqlFirst<EvacuationRow>(
      m,
      `INSERT INTO vps_evacuations (service_id, from_host_id, to_host_id, status, backup_id, plan)
       VALUES ($1, $2, $3, 'running', $4, $5)
       ON CONFLICT (service_id, from_host_id) DO UPDATE SET to_host_id = $3, status = 'running', backup_id = $4, plan = $5,
              error_code = NULL, error_message = NULL, started_at = now(), finished_at = NULL, stale_removed_at = NULL
       RETURNING ${ROW}`,
      [e.serviceId, e.fromHostId, e.toHostId, e.backupId, JSON.stringify(e.plan)],
    ))!;
  }

  async finish(m: EntityManager, id: string, status: 'restored' | 'rebuilt'): Promise<void> {
    await runSql(m, `UPDATE vps_evacuations SET status = $2, finished_at = now() WHERE id = $1`, [id, status]);
  }

  /** A VPS that could not be evacuated: recorded so the operator sees why, tried again by the next run. */
  async fail(m: EntityManager, serviceId: string, fromHostId: string, error: { code: string; message: string }): Promise<void> {
    await runSql(
      m,
      `INSERT INTO vps_evacuations (service_id, from_host_id, status, error_code, error_message, finished_at)
       VALUES ($1, $2, 'failed', $3, $4, now())
       ON CONFLICT (service_id, from_host_id) DO UPDATE SET status = 'failed', to_host_id = NULL, error_code = $3, error_message = $4,
              finished_at = now()`,
      [serviceId, fromHostId, error.code, error.message.slice(0, 2000)],
    );
  }

  /** The newest available backup of the VPS (its object is off the hypervisors: a dead host does not matter). */
  latestBackup(m: EntityManager, serviceId: string): Promise<LatestBackup | null> {
    return sqlFirst<LatestBackup>(
      m,
      `SELECT id, storage_key AS key, size_bytes::float8 AS "sizeBytes", to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS "createdAt"
         FROM vps_backups WHERE service_id = $1 AND status = 'available' ORDER BY created_at DESC, id DESC LIMIT 1`,
      [serviceId],
    );
  }

  /** Whether an action of the customer is still driven on the VPS (it would record a state over the evacuation's). */
  async actionRunning(m: EntityManager, serviceId: string): Promise<boolean> {
    return (await sqlRows(m, `SELECT 1 FROM instance_actions WHERE service_id = $1 AND status = 'running'`, [serviceId])).length > 0;
  }

  /** The forwarded SSH port kept on the new host when it is free there; false when another VPS of that host has it. */
  async leaseValue(m: EntityManager, serviceId: string, scope: string, value: string): Promise<boolean> {
    const rows = await sqlRows(
      m,
      `WITH taken AS (INSERT INTO network_leases (scope, value, service_id) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING value)
       SELECT value FROM taken`,
      [scope, value, serviceId],
    );
    if (rows.length) return true;
    return (
      (await sqlRows(m, `SELECT 1 FROM network_leases WHERE scope = $1 AND value = $2 AND service_id = $3`, [scope, value, serviceId]))
        .length > 0
    );
  }

  /** The VPS's way in on its new host, and the power state it is left in. */
  async settleInstance(m: EntityManager, serviceId: string, network: GuestNetwork | null, powerState: PowerState): Promise<void> {
    await runSql(
      m,
      `UPDATE vps_instances SET network = coalesce($2::jsonb, network), ssh_port = CASE WHEN $2::jsonb ->> 'mode' = 'user' THEN ($2::jsonb ->> 'sshPort')::int ELSE ssh_port END,
              power_state = $3, updated_at = now()
        WHERE service_id = $1`,
      [serviceId, network ? JSON.stringify(network) : null, powerState],
    );
  }

  /** Evacuated VPSes whose stale domain and disks are still on the old host (it was silent since). */
  stale(fromHostId: string): Promise<{ id: string; serviceId: string; providerRef: string | null; region: string }[]> {
    return sqlRows(
      this.dataSource,
      `SELECT e.id, e.service_id AS "serviceId", i.provider_ref AS "providerRef", coalesce(i.region, '') AS region
         FROM vps_evacuations e JOIN vps_instances i ON i.service_id = e.service_id
        WHERE e.from_host_id = $1 AND e.stale_removed_at IS NULL AND e.status IN ('restored', 'rebuilt')
          AND i.host_id IS DISTINCT FROM $1`,
      [fromHostId],
    );
  }

  async staleRemoved(id: string): Promise<void> {
    await runSql(this.dataSource, `UPDATE vps_evacuations SET stale_removed_at = now() WHERE id = $1`, [id]);
  }
}
