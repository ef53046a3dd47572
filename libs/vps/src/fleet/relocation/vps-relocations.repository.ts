import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { LeaseStore, runSql, sqlFirst, sqlRows } from '@app/core';
import type { HostNeed } from '../../hosts/host.entity';
import type { RecreatePlan } from './relocated-vps.repository';

/** How the machine gets to the new host: its disk copied from the old one, or made again from its latest backup or its image. */
/** `copy`: moved from a host that answers; made again from the current `disk` (shared storage), a `backup` or the `image`. */
export type RelocationSource = 'copy' | 'disk' | 'backup' | 'image';
export type RelocationStatus = 'running' | 'succeeded' | 'rolled_back' | 'failed';

export interface NewRelocation {
  serviceId: string;
  source: RelocationSource;
  from: { id: string; name: string };
  to: { id: string; name: string };
  need: HostNeed;
  wasRunning: boolean;
  /** A copy of a running machine by live migration (it keeps running). */
  live?: boolean;
  toSshPort: number | null;
  backupId?: string | null;
  plan?: RecreatePlan | null;
}

/** A relocation this process holds the lease of. */
export interface RelocationWork {
  id: string;
  serviceId: string;
  accountId: string;
  serviceName: string;
  serviceStatus: string;
  source: RelocationSource;
  fromHostId: string | null;
  toHostId: string | null;
  fromHost: string;
  toHost: string;
  need: HostNeed;
  wasRunning: boolean;
  live: boolean;
  toSshPort: number | null;
  /** A recreated machine's plan; null for a copy. */
  plan: RecreatePlan | null;
  /** This attempt included. */
  attempts: number;
  lastError: string | null;
}

export interface RelocationRecord {
  id: string;
  serviceId: string;
  source: RelocationSource;
  fromHost: string;
  toHost: string;
  status: RelocationStatus;
  live: boolean;
  downtimeMs: number | null;
  backupId: string | null;
  errorCode: string | null;
  lastError: string | null;
}

export type Ended = Exclude<RelocationStatus, 'running'>;

export interface MoveCounts {
  cold: Record<Ended, number>;
  live: Record<Ended, number>;
  /** The live moves that succeeded with a measured downtime: its sum and their count. */
  liveDowntime: { seconds: number; count: number };
}

const RECORD = `r.id, r.service_id AS "serviceId", r.source, r.from_host AS "fromHost", r.to_host AS "toHost", r.status, r.live,
  r.downtime_ms AS "downtimeMs", r.backup_id AS "backupId", r.error_code AS "errorCode", r.last_error AS "lastError"`;
const cut = (error: string | null | undefined) => error?.slice(0, 2000) ?? null;

/** All SQL on vps_relocations: the durable record of each relocation of a VPS to another host. */
@Injectable()
export class VpsRelocationsRepository implements LeaseStore<string, RelocationWork> {
  constructor(private readonly dataSource: DataSource) {}

  async insert(manager: EntityManager, r: NewRelocation): Promise<string> {
    const row = await sqlFirst<{ id: string }>(
      manager,
      `INSERT INTO vps_relocations (service_id, source, from_host_id, from_host, to_host_id, to_host, vcpus, memory_mb, disk_gb, was_running,
                                    to_ssh_port, backup_id, plan, live)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14) RETURNING id`,
      [
        r.serviceId,
        r.source,
        r.from.id,
        r.from.name,
        r.to.id,
        r.to.name,
        r.need.vcpus,
        r.need.memoryMb,
        r.need.diskGb,
        r.wasRunning,
        r.toSshPort,
        r.backupId ?? null,
        r.plan ? JSON.stringify(r.plan) : null,
        r.live ?? false,
      ],
    );
    return row!.id;
  }

  /** Takes the lease of a running relocation nobody holds (or whose holder's ran out), counting the attempt. */
  tryTake(id: string, seconds: number): Promise<RelocationWork | null> {
    return sqlFirst<RelocationWork>(
      this.dataSource,
      `WITH leased AS (
         UPDATE vps_relocations SET lease_until = now() + make_interval(secs => $2), attempts = attempts + 1, updated_at = now()
          WHERE id = $1 AND status = 'running' AND (lease_until IS NULL OR lease_until < now())
          RETURNING *
       )
       SELECT l.id, l.service_id AS "serviceId", s.account_id AS "accountId", s.name AS "serviceName", s.status AS "serviceStatus",
              l.source, l.from_host_id AS "fromHostId", l.to_host_id AS "toHostId", l.from_host AS "fromHost", l.to_host AS "toHost",
              json_build_object('vcpus', l.vcpus, 'memoryMb', l.memory_mb, 'diskGb', l.disk_gb) AS need,
              l.was_running AS "wasRunning", l.live, l.to_ssh_port AS "toSshPort", l.plan, l.attempts, l.last_error AS "lastError"
         FROM leased l JOIN services s ON s.id = l.service_id`,
      [id, seconds],
    );
  }

  async renew(id: string, seconds: number): Promise<void> {
    await runSql(
      this.dataSource,
      `UPDATE vps_relocations SET lease_until = now() + make_interval(secs => $2) WHERE id = $1 AND status = 'running'`,
      [id, seconds],
    );
  }

  async release(id: string, error: string | null): Promise<void> {
    await runSql(
      this.dataSource,
      `UPDATE vps_relocations SET lease_until = NULL, last_error = coalesce($2, last_error), updated_at = now() WHERE id = $1 AND status = 'running'`,
      [id, cut(error)],
    );
  }

  /** The pause a live move's guest saw at the switch-over, as libvirt measured it. */
  async recordDowntime(id: string, downtimeMs: number | null): Promise<void> {
    await runSql(this.dataSource, `UPDATE vps_relocations SET downtime_ms = $2, updated_at = now() WHERE id = $1`, [id, downtimeMs]);
  }

  /** Ends a running relocation; false when it had ended already. */
  async finish(manager: EntityManager, id: string, status: Ended, error: { code?: string; message: string | null }): Promise<boolean> {
    const rows = await sqlRows(
      manager,
      `WITH ended AS (
         UPDATE vps_relocations SET status = $2, error_code = coalesce($3, error_code), last_error = coalesce($4, last_error),
                lease_until = NULL, finished_at = now(), updated_at = now()
          WHERE id = $1 AND status = 'running' RETURNING id
       ) SELECT id FROM ended`,
      [id, status, error.code ?? null, cut(error.message)],
    );
    return rows.length > 0;
  }

  find(id: string): Promise<RelocationRecord | null> {
    return sqlFirst<RelocationRecord>(this.dataSource, `SELECT ${RECORD} FROM vps_relocations r WHERE r.id = $1`, [id]);
  }

  runningFor(serviceId: string): Promise<RelocationRecord | null> {
    return sqlFirst<RelocationRecord>(
      this.dataSource,
      `SELECT ${RECORD} FROM vps_relocations r WHERE r.service_id = $1 AND r.status = 'running'`,
      [serviceId],
    );
  }

  /** What a drain moves: the VPSes placed on the host (terminated ones have no allocation) and those whose relocation from it still runs. */
  async placedOn(hostId: string): Promise<string[]> {
    const rows = await sqlRows<{ id: string }>(
      this.dataSource,
      `SELECT id FROM (
         SELECT a.service_id AS id, a.created_at AS at FROM host_allocations a WHERE a.host_id = $1
         UNION SELECT r.service_id, r.created_at FROM vps_relocations r WHERE r.from_host_id = $1 AND r.status = 'running'
       ) placed GROUP BY id ORDER BY min(at), id`,
      [hostId],
    );
    return rows.map((row) => row.id);
  }

  /** What an evacuation has left to do: the VPSes still recorded on the host, not terminated. */
  async recordedOn(hostId: string): Promise<string[]> {
    const rows = await sqlRows<{ id: string }>(
      this.dataSource,
      `SELECT i.service_id AS id FROM vps_instances i JOIN services s ON s.id = i.service_id
        WHERE i.host_id = $1 AND s.status <> 'terminated' ORDER BY s.created_at, s.id`,
      [hostId],
    );
    return rows.map((row) => row.id);
  }

  /** Running relocations no process works on: a holder that died (its lease ran out), or one whose job was lost. */
  async takeAbandoned(idleSeconds: number): Promise<string[]> {
    const rows = await sqlRows<{ id: string }>(
      this.dataSource,
      `WITH taken AS (
         UPDATE vps_relocations SET lease_until = NULL, updated_at = now()
          WHERE id IN (SELECT id FROM vps_relocations
                        WHERE status = 'running'
                          AND (lease_until < now() OR (lease_until IS NULL AND updated_at < now() - make_interval(secs => $1)))
                        ORDER BY updated_at LIMIT 100 FOR UPDATE SKIP LOCKED)
          RETURNING id
       ) SELECT id FROM taken`,
      [idleSeconds],
    );
    return rows.map((row) => row.id);
  }

  /** Copies (moves) ended, by how (cold or live) and outcome, and the live ones' downtime, for /metrics. */
  async moveCounts(): Promise<MoveCounts> {
    const rows = await sqlRows<{ live: boolean; status: RelocationStatus; n: number; downtime: number; timed: number }>(
      this.dataSource,
      `SELECT live, status, count(*)::int AS n, coalesce(sum(downtime_ms), 0)::float8 AS downtime, count(downtime_ms)::int AS timed
         FROM vps_relocations WHERE source = 'copy' AND status <> 'running' GROUP BY live, status`,
    );
    const counts: MoveCounts = {
      cold: { succeeded: 0, rolled_back: 0, failed: 0 },
      live: { succeeded: 0, rolled_back: 0, failed: 0 },
      liveDowntime: { seconds: 0, count: 0 },
    };
    for (const row of rows) {
      if (row.status === 'running') continue;
      counts[row.live ? 'live' : 'cold'][row.status] = row.n;
      if (row.live && row.status === 'succeeded') counts.liveDowntime = { seconds: row.downtime / 1000, count: row.timed };
    }
    return counts;
  }

  /** Machines made again elsewhere whose stale domain and disks are still on the old host (it was silent since). */
  stale(
    fromHostId: string,
  ): Promise<{ id: string; serviceId: string; providerRef: string | null; region: string; source: RelocationSource }[]> {
    return sqlRows(
      this.dataSource,
      `SELECT r.id, r.service_id AS "serviceId", i.provider_ref AS "providerRef", coalesce(i.region, '') AS region, r.source
         FROM vps_relocations r JOIN vps_instances i ON i.service_id = r.service_id
        WHERE r.from_host_id = $1 AND r.stale_removed_at IS NULL AND r.source <> 'copy' AND r.status = 'succeeded'
          AND i.host_id IS DISTINCT FROM $1`,
      [fromHostId],
    );
  }

  async staleRemoved(id: string): Promise<void> {
    await runSql(this.dataSource, `UPDATE vps_relocations SET stale_removed_at = now() WHERE id = $1`, [id]);
  }
}
