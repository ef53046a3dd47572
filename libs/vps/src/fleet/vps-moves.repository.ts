import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { LeaseStore, runSql, sqlFirst, sqlRows } from '@app/core';
import type { HostNeed, HostTarget } from '../hosts/host.entity';

export type MoveStatus = 'running' | 'succeeded' | 'rolled_back' | 'failed';

export interface NewMove {
  serviceId: string;
  from: { id: string; name: string };
  to: { id: string; name: string };
  need: HostNeed;
  wasRunning: boolean;
  toSshPort: number | null;
}

/** A move this process holds the lease of. */
export interface MoveWork {
  id: string;
  serviceId: string;
  accountId: string;
  serviceName: string;
  serviceStatus: string;
  fromHostId: string | null;
  toHostId: string | null;
  fromHost: string;
  toHost: string;
  need: HostNeed;
  wasRunning: boolean;
  toSshPort: number | null;
  /** This attempt included. */
  attempts: number;
  lastError: string | null;
}

export interface MoveRecord {
  id: string;
  serviceId: string;
  fromHost: string;
  toHost: string;
  status: MoveStatus;
  lastError: string | null;
}

const RECORD = `m.id, m.service_id AS "serviceId", m.from_host AS "fromHost", m.to_host AS "toHost", m.status, m.last_error AS "lastError"`;

/** All SQL on vps_moves: the durable record of each move of a VPS between hosts. */
@Injectable()
export class VpsMovesRepository implements LeaseStore<string, MoveWork> {
  constructor(private readonly dataSource: DataSource) {}

  async insert(manager: EntityManager, move: NewMove): Promise<string> {
    const row = await sqlFirst<{ id: string }>(
      manager,
      `INSERT INTO vps_moves (service_id, from_host_id, from_host, to_host_id, to_host, vcpus, memory_mb, disk_gb, was_running, to_ssh_port)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING id`,
      [
        move.serviceId,
        move.from.id,
        move.from.name,
        move.to.id,
        move.to.name,
        move.need.vcpus,
        move.need.memoryMb,
        move.need.diskGb,
        move.wasRunning,
        move.toSshPort,
      ],
    );
    return row!.id;
  }

  /** Takes the lease of a running move nobody holds (or whose holder's ran out), counting the attempt. */
  tryTake(id: string, seconds: number): Promise<MoveWork | null> {
    return sqlFirst<MoveWork>(
      this.dataSource,
      `WITH leased AS (
         UPDATE vps_moves SET lease_until = now() + make_interval(secs => $2), attempts = attempts + 1, updated_at = now()
          WHERE id = $1 AND status = 'running' AND (lease_until IS NULL OR lease_until < now())
          RETURNING *
       )
       SELECT l.id, l.service_id AS "serviceId", s.account_id AS "accountId", s.name AS "serviceName", s.status AS "serviceStatus",
              l.from_host_id AS "fromHostId", l.to_host_id AS "toHostId", l.from_host AS "fromHost", l.to_host AS "toHost",
              json_build_object('vcpus', l.vcpus, 'memoryMb', l.memory_mb, 'diskGb', l.disk_gb) AS need,
              l.was_running AS "wasRunning", l.to_ssh_port AS "toSshPort", l.attempts, l.last_error AS "lastError"
         FROM leased l JOIN services s ON s.id = l.service_id`,
      [id, seconds],
    );
  }

  async renew(id: string, seconds: number): Promise<void> {
    await runSql(
      this.dataSource,
      `UPDATE vps_moves SET lease_until = now() + make_interval(secs => $2) WHERE id = $1 AND status = 'running'`,
      [id, seconds],
    );
  }

  async release(id: string, error: string | null): Promise<void> {
    await runSql(
      this.dataSource,
      `UPDATE vps_moves SET lease_until = NULL, last_error = coalesce($2, last_error), updated_at = now() WHERE id = $1 AND status = 'running'`,
      [id, error?.slice(0, 500) ?? null],
    );
  }

  /** Ends a running move; false when it had ended already. */
  async finish(manager: EntityManager, id: string, status: Exclude<MoveStatus, 'running'>, error: string | null): Promise<boolean> {
    const rows = await sqlRows(
      manager,
      `WITH ended AS (
         UPDATE vps_moves SET status = $2, last_error = coalesce($3, last_error), lease_until = NULL, finished_at = now(), updated_at = now()
          WHERE id = $1 AND status = 'running' RETURNING id
       ) SELECT id FROM ended`,
      [id, status, error?.slice(0, 500) ?? null],
    );
    return rows.length > 0;
  }

  find(id: string): Promise<MoveRecord | null> {
    return sqlFirst<MoveRecord>(this.dataSource, `SELECT ${RECORD} FROM vps_moves m WHERE m.id = $1`, [id]);
  }

  runningFor(serviceId: string): Promise<MoveRecord | null> {
    return sqlFirst<MoveRecord>(this.dataSource, `SELECT ${RECORD} FROM vps_moves m WHERE m.service_id = $1 AND m.status = 'running'`, [
      serviceId,
    ]);
  }

  /** The new host as the compute port takes it; null once the host was removed. */
  target(hostId: string | null): Promise<HostTarget | null> {
    return sqlFirst<HostTarget>(this.dataSource, `SELECT id, name, uri, vnc_listen AS "vncListen", state FROM hosts WHERE id = $1`, [
      hostId,
    ]);
  }

  /** A VPS in rescue mode runs a domain of its own: it is not moved. */
  async inRescue(manager: EntityManager, serviceId: string): Promise<boolean> {
    return (await sqlRows(manager, `SELECT 1 FROM vps_rescues WHERE service_id = $1`, [serviceId])).length > 0;
  }

  /** What a drain moves: the VPSes placed on the host (terminated ones have no allocation) and those whose move from it still runs. */
  async onHost(hostId: string): Promise<string[]> {
    const rows = await sqlRows<{ id: string }>(
      this.dataSource,
      `SELECT id FROM (
         SELECT a.service_id AS id, a.created_at AS at FROM host_allocations a WHERE a.host_id = $1
         UNION SELECT m.service_id, m.created_at FROM vps_moves m WHERE m.from_host_id = $1 AND m.status = 'running'
       ) placed GROUP BY id ORDER BY min(at), id`,
      [hostId],
    );
    return rows.map((row) => row.id);
  }

  /** Running moves no process works on: a holder that died (its lease ran out), or one whose job was lost. */
  async takeAbandoned(idleSeconds: number): Promise<string[]> {
    const rows = await sqlRows<{ id: string }>(
      this.dataSource,
      `WITH taken AS (
         UPDATE vps_moves SET lease_until = NULL, updated_at = now()
          WHERE id IN (SELECT id FROM vps_moves
                        WHERE status = 'running'
                          AND (lease_until < now() OR (lease_until IS NULL AND updated_at < now() - make_interval(secs => $1)))
                        ORDER BY updated_at LIMIT 100 FOR UPDATE SKIP LOCKED)
          RETURNING id
       ) SELECT id FROM taken`,
      [idleSeconds],
    );
    return rows.map((row) => row.id);
  }

  /** Moves ended, by outcome, for /metrics. */
  async counts(): Promise<Record<Exclude<MoveStatus, 'running'>, number>> {
    const rows = await sqlRows<{ status: MoveStatus; n: number }>(
      this.dataSource,
      `SELECT status, count(*)::int AS n FROM vps_moves WHERE status <> 'running' GROUP BY status`,
    );
    const counts = { succeeded: 0, rolled_back: 0, failed: 0 };
    for (const row of rows) if (row.status !== 'running') counts[row.status] = row.n;
    return counts;
  }
}
