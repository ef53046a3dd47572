import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { runSql, sqlFirst, sqlRows } from '@app/core';
import type { HostNeed, HostRow, HostState, HostTarget, NewHost } from './host.entity';
import type { PlacementPolicy } from './placement';

const COLUMNS = `h.id, h.name, h.region, h.uri, h.vcpus, h.memory_mb AS "memoryMb", h.disk_gb AS "diskGb",
  h.cpu_overcommit::float8 AS "cpuOvercommit", h.vnc_listen AS "vncListen", h.state,
  h.used_vcpus AS "usedVcpus", h.used_memory_mb AS "usedMemoryMb", h.used_disk_gb AS "usedDiskGb", h.last_seen_at AS "lastSeenAt"`;
const VPS_COUNT = `(SELECT count(*)::int FROM host_allocations a WHERE a.host_id = h.id) AS "vpsCount"`;

/**
 * A VPS row's host as the compute port takes it (InstanceRef.host), for a query over
 * `vps_instances i`: null for a VPS on its region's configured hypervisor.
 */
export const HOST_OF_INSTANCE = `(SELECT json_build_object('id', h.id, 'name', h.name, 'uri', h.uri, 'vncListen', h.vnc_listen, 'state', h.state)
   FROM hosts h WHERE h.id = i.host_id) AS host`;

/** All SQL on hosts and host_allocations. */
@Injectable()
export class HostsRepository {
  constructor(private readonly dataSource: DataSource) {}

  async insert(host: NewHost): Promise<HostRow> {
    const row = await sqlFirst<{ id: string }>(
      this.dataSource,
      `INSERT INTO hosts (name, region, uri, vcpus, memory_mb, disk_gb, cpu_overcommit, vnc_listen)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id`,
      [host.name, host.region, host.uri, host.vcpus, host.memoryMb, host.diskGb, host.cpuOvercommit, host.vncListen],
    );
    return (await this.byName(host.name, row!.id))!;
  }

  async byName(name: string, id?: string): Promise<HostRow | null> {
    return sqlFirst<HostRow>(this.dataSource, `SELECT ${COLUMNS}, ${VPS_COUNT} FROM hosts h WHERE h.name = $1 OR h.id = $2`, [
      name,
      id ?? null,
    ]);
  }

  list(): Promise<HostRow[]> {
    return sqlRows<HostRow>(this.dataSource, `SELECT ${COLUMNS}, ${VPS_COUNT} FROM hosts h ORDER BY h.region, h.name`);
  }

  /** Whether any host is declared for the region: then its VPSes are placed on hosts, not on the configured URI. */
  async regionHasHosts(manager: EntityManager, region: string): Promise<boolean> {
    return (await sqlRows(manager, `SELECT 1 FROM hosts WHERE region = $1 LIMIT 1`, [region])).length > 0;
  }

  /**
   * The few emptiest (spread) or fullest (pack) enabled hosts of the region with room for `need`,
   * by the placement index: a region of thousands of hosts costs a short index walk, not a scan.
   * Placement ranks these exactly (rankHosts).
   */
  candidates(manager: EntityManager, region: string, need: HostNeed, policy: PlacementPolicy, limit = 8): Promise<HostRow[]> {
    const order = policy === 'spread' ? 'h.load, h.name' : 'h.load DESC, h.name DESC';
    return sqlRows<HostRow>(
      manager,
      `SELECT ${COLUMNS}, 0 AS "vpsCount" FROM hosts h
        WHERE h.region = $1 AND h.state = 'enabled' AND h.used_vcpus + $2 <= floor(h.vcpus * h.cpu_overcommit)
          AND h.used_memory_mb + $3 <= h.memory_mb AND h.used_disk_gb + $4 <= h.disk_gb
        ORDER BY ${order} LIMIT $5`,
      [region, need.vcpus, need.memoryMb, need.diskGb, limit],
    );
  }

  /**
   * Takes `need` of the host for the VPS in the caller's transaction, if it still has room: the
   * UPDATE waits for another transaction's lock on the row and checks again what it committed,
   * so two replicas never overcommit a host. Null: another VPS took the room first.
   */
  async take(manager: EntityManager, hostId: string, serviceId: string, need: HostNeed): Promise<HostTarget | null> {
    const host = await sqlFirst<HostTarget>(
      manager,
      `WITH taken AS (
         UPDATE hosts SET used_vcpus = used_vcpus + $2, used_memory_mb = used_memory_mb + $3, used_disk_gb = used_disk_gb + $4, updated_at = now()
          WHERE id = $1 AND state = 'enabled' AND used_vcpus + $2 <= floor(vcpus * cpu_overcommit)
            AND used_memory_mb + $3 <= memory_mb AND used_disk_gb + $4 <= disk_gb
          RETURNING id, name, uri, vnc_listen, state
       ) SELECT id, name, uri, vnc_listen AS "vncListen", state FROM taken`,
      [hostId, need.vcpus, need.memoryMb, need.diskGb],
    );
    if (!host) return null;
    await runSql(manager, `INSERT INTO host_allocations (service_id, host_id, vcpus, memory_mb, disk_gb) VALUES ($1, $2, $3, $4, $5)`, [
      serviceId,
      hostId,
      need.vcpus,
      need.memoryMb,
      need.diskGb,
    ]);
    return host;
  }

  /** Gives back what the VPS took (once: its allocation row goes with it). */
  async release(manager: EntityManager, serviceId: string): Promise<void> {
    await runSql(
      manager,
      `WITH freed AS (DELETE FROM host_allocations WHERE service_id = $1 RETURNING host_id, vcpus, memory_mb, disk_gb)
       UPDATE hosts h SET used_vcpus = h.used_vcpus - f.vcpus, used_memory_mb = h.used_memory_mb - f.memory_mb,
              used_disk_gb = h.used_disk_gb - f.disk_gb, updated_at = now()
         FROM freed f WHERE h.id = f.host_id`,
      [serviceId],
    );
  }

  async setState(name: string, state: HostState): Promise<boolean> {
    const rows = await sqlRows(
      this.dataSource,
      `WITH changed AS (UPDATE hosts SET state = $2, silent_since = NULL, state_before_unreachable = NULL, updated_at = now() WHERE name = $1 RETURNING id) SELECT id FROM changed`,
      [name, state],
    );
    return rows.length > 0;
  }

  /** Deletes a host no VPS record points at (a terminated VPS's record keeps its host: it is refused too). */
  async removeEmpty(name: string): Promise<'removed' | 'missing' | 'holds_vps'> {
    const host = await sqlFirst<{ id: string; used: boolean }>(
      this.dataSource,
      `SELECT h.id, EXISTS (SELECT 1 FROM host_allocations a WHERE a.host_id = h.id) AS used FROM hosts h WHERE h.name = $1`,
      [name],
    );
    if (!host) return 'missing';
    if (host.used) return 'holds_vps';
    // Terminated VPSes' records let go of it; a VPS placed meanwhile keeps it (its allocation row).
    await runSql(this.dataSource, `UPDATE vps_instances SET host_id = NULL WHERE host_id = $1`, [host.id]);
    const gone = await sqlRows(
      this.dataSource,
      `WITH gone AS (DELETE FROM hosts h WHERE h.id = $1 AND NOT EXISTS (SELECT 1 FROM host_allocations a WHERE a.host_id = h.id) RETURNING id)
       SELECT id FROM gone`,
      [host.id],
    );
    if (!gone.length) return 'holds_vps';
    return 'removed';
  }

  /** What the VPS took of its host (null: it runs on its region's configured hypervisor). */
  allocationOf(manager: EntityManager, serviceId: string): Promise<(HostNeed & { hostId: string }) | null> {
    return sqlFirst(
      manager,
      `SELECT host_id AS "hostId", vcpus, memory_mb AS "memoryMb", disk_gb AS "diskGb" FROM host_allocations WHERE service_id = $1`,
      [serviceId],
    );
  }

  /** Holds `need` on a host for a VPS moving there (its allocation row moves with `settleMove`); false without room. */
  async reserve(manager: EntityManager, hostId: string, need: HostNeed, sign: 1 | -1 = 1): Promise<boolean> {
    const rows = await sqlRows(
      manager,
      `WITH held AS (
         UPDATE hosts SET used_vcpus = used_vcpus + $2, used_memory_mb = used_memory_mb + $3, used_disk_gb = used_disk_gb + $4, updated_at = now()
          WHERE id = $1 AND ($2 < 0 OR (state = 'enabled' AND used_vcpus + $2 <= floor(vcpus * cpu_overcommit)
            AND used_memory_mb + $3 <= memory_mb AND used_disk_gb + $4 <= disk_gb))
          RETURNING id
       ) SELECT id FROM held`,
      [hostId, sign * need.vcpus, sign * need.memoryMb, sign * need.diskGb],
    );
    return rows.length > 0;
  }

  /** The machine is on the new host: the old host's share goes back, the allocation and the VPS record point at the new one. */
  async settleMove(manager: EntityManager, serviceId: string, toHostId: string): Promise<void> {
    await runSql(
      manager,
      `UPDATE hosts h SET used_vcpus = h.used_vcpus - a.vcpus, used_memory_mb = h.used_memory_mb - a.memory_mb,
              used_disk_gb = h.used_disk_gb - a.disk_gb, updated_at = now()
         FROM host_allocations a WHERE a.service_id = $1 AND h.id = a.host_id`,
      [serviceId],
    );
    await runSql(manager, `UPDATE host_allocations SET host_id = $2 WHERE service_id = $1`, [serviceId, toHostId]);
    await runSql(manager, `UPDATE vps_instances SET host_id = $2, updated_at = now() WHERE service_id = $1`, [serviceId, toHostId]);
  }

  /** The health check's view: every host with its URI and whether it was silent already. */
  watched(): Promise<{ id: string; name: string; uri: string; state: HostState }[]> {
    return sqlRows(this.dataSource, `SELECT id, name, uri, state FROM hosts ORDER BY name`);
  }

  /** It answered: seen now; an unreachable host goes back to the state it had. Returns whether it was unreachable. */
  async answered(id: string): Promise<boolean> {
    const rows = await sqlRows<{ was: HostState }>(
      this.dataSource,
      `WITH seen AS (
         UPDATE hosts h SET last_seen_at = now(), silent_since = NULL,
                state = CASE WHEN h.state = 'unreachable' THEN coalesce(h.state_before_unreachable, 'enabled') ELSE h.state END,
                state_before_unreachable = NULL
           FROM hosts old WHERE h.id = $1 AND old.id = h.id
          RETURNING old.state AS was
       ) SELECT was FROM seen`,
      [id],
    );
    return rows[0]?.was === 'unreachable';
  }

  /** It did not answer: silent since the first miss, unreachable once that is `graceSeconds` ago. Returns whether it is unreachable. */
  async silent(id: string, graceSeconds: number): Promise<boolean> {
    const rows = await sqlRows(
      this.dataSource,
      `WITH marked AS (
         UPDATE hosts SET silent_since = coalesce(silent_since, now()),
                state_before_unreachable = CASE WHEN state <> 'unreachable' AND silent_since < now() - make_interval(secs => $2)
                                                THEN state ELSE state_before_unreachable END,
                state = CASE WHEN silent_since < now() - make_interval(secs => $2) THEN 'unreachable' ELSE state END
          WHERE id = $1
          RETURNING state, state_before_unreachable
       ) SELECT 1 FROM marked WHERE state = 'unreachable' AND state_before_unreachable IS NOT NULL`,
      [id, graceSeconds],
    );
    return rows.length > 0;
  }

  /** URIs of every host (reconciliation lists them; images go to them). */
  async uris(states?: readonly HostState[]): Promise<string[]> {
    const rows = await sqlRows<{ uri: string }>(
      this.dataSource,
      `SELECT DISTINCT uri FROM hosts WHERE $1::text[] IS NULL OR state = ANY($1::text[]) ORDER BY uri`,
      [states ? [...states] : null],
    );
    return rows.map((row) => row.uri);
  }
}
