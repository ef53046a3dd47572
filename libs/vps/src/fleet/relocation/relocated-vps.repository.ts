import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { runSql, sqlFirst, sqlRows } from '@app/core';
import type { GuestBoot, GuestNetwork, GuestSeed } from '../../compute/compute-provider';
import type { HostTarget } from '../../hosts/host.entity';
import type { PowerState } from '../../vps.types';

export interface LatestBackup {
  id: string;
  key: string;
  sizeBytes: number;
  createdAt: string;
}

/** Where a recreated machine's root disk comes from, as recorded: the disk it had (shared storage), the latest backup (with the seed), or the image. */
export type PlannedDisk =
  { from: 'disk' } | { from: 'backup'; backup: LatestBackup; seed: GuestSeed } | { from: 'image'; boot: GuestBoot; imageName: string };

/** What a relocation that makes the machine again decided, kept so a resumed try makes the same. */
export interface RecreatePlan {
  network: GuestNetwork | null;
  /** The power state the VPS had on the dead host (its last known): running ones are started. */
  powerState: PowerState;
  disk: PlannedDisk;
}

/** What a relocation reads and writes of the VPS beside its own record: its rescue, backups, actions, SSH port lease and record. */
@Injectable()
export class RelocatedVpsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** The new host as the compute port takes it; null once the host was removed. */
  target(hostId: string | null): Promise<HostTarget | null> {
    return sqlFirst<HostTarget>(this.dataSource, `SELECT id, name, uri, vnc_listen AS "vncListen", state FROM hosts WHERE id = $1`, [
      hostId,
    ]);
  }

  /** A VPS in rescue mode runs a domain of its own: its disk is not copied. */
  async inRescue(manager: EntityManager, serviceId: string): Promise<boolean> {
    return (await sqlRows(manager, `SELECT 1 FROM vps_rescues WHERE service_id = $1`, [serviceId])).length > 0;
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

  /** Whether an action of the customer is still driven on the VPS (it would record a state over the relocation's). */
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

  /** A recreated machine's way in on its new host, and the power state it is left in. */
  async settleInstance(m: EntityManager, serviceId: string, network: GuestNetwork | null, powerState: PowerState): Promise<void> {
    await runSql(
      m,
      `UPDATE vps_instances SET network = coalesce($2::jsonb, network), ssh_port = CASE WHEN $2::jsonb ->> 'mode' = 'user' THEN ($2::jsonb ->> 'sshPort')::int ELSE ssh_port END,
              power_state = $3, updated_at = now()
        WHERE service_id = $1`,
      [serviceId, network ? JSON.stringify(network) : null, powerState],
    );
  }
}
