import { Injectable } from '@nestjs/common';
import { runSql, sqlRows } from '@app/core';
import { EntityManager } from 'typeorm';

export interface Candidates {
  scope: string;
  /** SQL expression of the value for the number v (e.g. v::text), over v in [from, to]. */
  valueOf: string;
  from: number;
  to: number;
  /** Numbers never handed out (a gateway). */
  skip: number[];
  /** Where the search starts (wrapping round), so concurrent allocators rarely want the same one. */
  start: number;
}

/**
 * All SQL on network_leases: one row per address or forwarded port in use, its primary key
 * (scope, value) the guarantee that two replicas never hand out the same one.
 */
@Injectable()
export class NetworkLeasesRepository {
  /**
   * Takes the first free value from `start` on; null when another transaction took the same one
   * first (try again) and 'full' when none is free.
   */
  async take(manager: EntityManager, serviceId: string, c: Candidates): Promise<string | null | 'full'> {
    const size = c.to - c.from + 1;
    const rows = await sqlRows<{ value: string | null; inserted: boolean }>(
      manager,
      `WITH candidate AS (
         SELECT ${c.valueOf} AS value FROM generate_series($3::bigint, $4::bigint) AS v
          WHERE v <> ALL($5::bigint[])
            AND NOT EXISTS (SELECT 1 FROM network_leases l WHERE l.scope = $1 AND l.value = ${c.valueOf})
          ORDER BY (v - $6::bigint + $7::bigint) % $7::bigint
          LIMIT 1
       ), taken AS (
         INSERT INTO network_leases (scope, value, service_id) SELECT $1, value, $2 FROM candidate
         ON CONFLICT DO NOTHING RETURNING value
       )
       SELECT c.value, EXISTS (SELECT 1 FROM taken) AS inserted FROM (SELECT 1) one LEFT JOIN candidate c ON true`,
      [c.scope, serviceId, c.from, c.to, c.skip, c.start, size],
    );
    const [row] = rows;
    if (!row || row.value === null) return 'full';
    return row.inserted ? row.value : null;
  }

  async release(manager: EntityManager, serviceId: string): Promise<void> {
    await runSql(manager, `DELETE FROM network_leases WHERE service_id = $1`, [serviceId]);
  }

  /** The service's value of `fromScope` taken in `toScope` too, if it is free there (a VPS moving keeps its port); null if not. */
  async carry(manager: EntityManager, serviceId: string, fromScope: string, toScope: string): Promise<string | null> {
    const row = await sqlRows<{ value: string }>(
      manager,
      `INSERT INTO network_leases (scope, value, service_id)
       SELECT $3, value, service_id FROM network_leases WHERE service_id = $1 AND scope = $2
       ON CONFLICT DO NOTHING RETURNING value`,
      [serviceId, fromScope, toScope],
    );
    return row[0]?.value ?? null;
  }

  /** Whether the service holds a lease of `scope`. */
  async holds(manager: EntityManager, serviceId: string, scope: string): Promise<boolean> {
    return (await sqlRows(manager, `SELECT 1 FROM network_leases WHERE service_id = $1 AND scope = $2`, [serviceId, scope])).length > 0;
  }

  async releaseScope(manager: EntityManager, serviceId: string, scope: string): Promise<void> {
    await runSql(manager, `DELETE FROM network_leases WHERE service_id = $1 AND scope = $2`, [serviceId, scope]);
  }

  async valuesOf(manager: EntityManager, serviceId: string): Promise<{ scope: string; value: string }[]> {
    return sqlRows<{ scope: string; value: string }>(
      manager,
      `SELECT scope, value FROM network_leases WHERE service_id = $1 ORDER BY scope`,
      [serviceId],
    );
  }
}
