import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { isoText, LeaseStore, poolQuery, runSql, sqlFirst, sqlRows } from '@app/core';
import type { ServiceStatus } from '@app/services';

export type GatewayState = 'pending' | 'active' | 'suspended' | 'closed' | 'purged';

/** What the service response shows of a service's storage (its `objectStorage`). */
export interface StorageSummaryRow {
  id: string;
  state: GatewayState;
  usedBytes: number | null;
  objects: number | null;
  buckets: number | null;
  quotaBytes: number;
  quotaObjects: number;
  usageUpdatedAt: string | null;
}

export interface NewGatewayUsers {
  serviceIds: string[];
  region: string;
  quotaBytes: number;
  quotaObjects: number;
  maxBuckets: number;
  /** The simulator has nothing to catch up with: rows start applied. */
  applied: boolean;
}

/** What one process, holding the lease, must make the gateway look like. */
export interface GatewayWork {
  serviceId: string;
  accountId: string;
  serviceName: string;
  status: ServiceStatus;
  region: string;
  quotaBytes: number;
  quotaObjects: number;
  maxBuckets: number;
  desiredVersion: number;
  appliedVersion: number;
  gatewayState: GatewayState;
  purgeDue: boolean;
  bucket: string | null;
  accessKeyId: string | null;
  /** Null until the gateway has made the key's secret. */
  secretSealed: string | null;
}

export interface UsageRow {
  service_id: string;
  account_id: string;
  name: string;
  region: string;
  quota_bytes: string;
  quota_objects: string;
  quota_notified: number;
  usage_updated_at: Date | null;
}

@Injectable()
export class ObjectStorageUsersRepository implements LeaseStore<string, GatewayWork> {
  constructor(private readonly dataSource: DataSource) {}

  /** The list's and the one-service response's part of these services, in one statement: `pending` until the gateway applied the latest change. */
  summaries(serviceIds: string[], manager?: EntityManager): Promise<StorageSummaryRow[]> {
    return poolQuery<StorageSummaryRow>(
      manager ?? this.dataSource,
      `SELECT service_id AS id, CASE WHEN applied_version < desired_version THEN 'pending' ELSE gateway_state END AS state,
              used_bytes::float8 AS "usedBytes", used_objects::float8 AS objects, bucket_count AS buckets,
              quota_bytes::float8 AS "quotaBytes", quota_objects::float8 AS "quotaObjects", ${isoText('usage_updated_at')} AS "usageUpdatedAt"
         FROM object_storage_users WHERE service_id = ANY($1::uuid[])`,
      [serviceIds],
    );
  }

  async insertMany(manager: EntityManager, rows: NewGatewayUsers): Promise<void> {
    await runSql(
      manager,
      `INSERT INTO object_storage_users (service_id, region, quota_bytes, quota_objects, max_buckets, applied_version, gateway_state)
       SELECT id, $2, $3, $4, $5, CASE WHEN $6 THEN 1 ELSE 0 END, CASE WHEN $6 THEN 'active' ELSE 'pending' END FROM unnest($1::uuid[]) AS id`,
      [rows.serviceIds, rows.region, rows.quotaBytes, rows.quotaObjects, rows.maxBuckets, rows.applied],
    );
  }

  /** The gateway must follow a change: a new version, and for a termination the time of the purge. */
  async bump(manager: EntityManager, serviceId: string, purgeAfter?: Date | null): Promise<void> {
    // purgeAfter undefined: unchanged; null: none (the service is no longer terminated).
    await runSql(
      manager,
      `UPDATE object_storage_users SET desired_version = desired_version + 1, purge_after = CASE WHEN $2 THEN $3::timestamptz ELSE purge_after END
        WHERE service_id = $1`,
      [serviceId, purgeAfter !== undefined, purgeAfter ?? null],
    );
  }

  /**
   * Takes the service's lease (null when another process holds it, or no such row); it outlasts a sync, so it is not renewed.
   * The work is read by a statement of its own: an UPDATE that waited for a change's COMMIT sees the change in its row but
   * not in the other tables it reads, and would apply the change's version with the key from before it.
   */
  async tryTake(serviceId: string, seconds: number): Promise<GatewayWork | null> {
    const taken = await sqlFirst<{ service_id: string }>(
      this.dataSource,
      `UPDATE object_storage_users SET lease_until = now() + make_interval(secs => $2), last_attempt_at = now()
        WHERE service_id = $1 AND (lease_until IS NULL OR lease_until < now())
        RETURNING service_id`,
      [serviceId, seconds],
    );
    if (!taken) return null;
    try {
      return await this.work(serviceId);
    } catch (err) {
      await this.release(serviceId, (err as Error).message);
      throw err;
    }
  }

  private async work(serviceId: string): Promise<GatewayWork | null> {
    const row = await sqlFirst<GatewayWork>(
      this.dataSource,
      `SELECT u.service_id AS "serviceId", s.account_id AS "accountId", s.name AS "serviceName", s.status,
              u.region, u.quota_bytes::float8 AS "quotaBytes", u.quota_objects::float8 AS "quotaObjects", u.max_buckets AS "maxBuckets",
              u.desired_version AS "desiredVersion", u.applied_version AS "appliedVersion", u.gateway_state AS "gatewayState",
              (u.purge_after IS NOT NULL AND u.purge_after <= now()) AS "purgeDue",
              c.bucket, c.access_key_id AS "accessKeyId", c.secret_sealed AS "secretSealed"
         FROM object_storage_users u JOIN services s ON s.id = u.service_id
         LEFT JOIN object_storage_credentials c ON c.service_id = u.service_id
        WHERE u.service_id = $1`,
      [serviceId],
    );
    return row ?? null;
  }

  /** Records what the gateway now is and frees the lease; true while newer changes wait. */
  async settle(serviceId: string, version: number, state: GatewayState): Promise<boolean> {
    const row = await sqlFirst<{ pending: boolean }>(
      this.dataSource,
      `UPDATE object_storage_users SET applied_version = greatest(applied_version, $2), gateway_state = $3, last_error = NULL, lease_until = NULL
        WHERE service_id = $1
        RETURNING desired_version > applied_version OR (purge_after IS NOT NULL AND purge_after <= now() AND gateway_state <> 'purged') AS pending`,
      [serviceId, version, state],
    );
    return row?.pending ?? false;
  }

  /** The gateway has not caught up with the service's newest change. */
  async pending(serviceId: string): Promise<boolean> {
    const row = await sqlFirst<{ pending: boolean }>(
      this.dataSource,
      `SELECT applied_version < desired_version AS pending FROM object_storage_users WHERE service_id = $1`,
      [serviceId],
    );
    return row?.pending ?? false;
  }

  async release(serviceId: string, error: string | null): Promise<void> {
    await runSql(
      this.dataSource,
      `UPDATE object_storage_users SET lease_until = NULL, last_error = coalesce($2, last_error) WHERE service_id = $1`,
      [serviceId, error?.slice(0, 500) ?? null],
    );
  }

  /** Services the gateway has not caught up with and no process works on, last tried before `idleSeconds` ago. */
  async unsettled(idleSeconds: number, limit = 100): Promise<string[]> {
    const rows = await sqlRows<{ service_id: string }>(
      this.dataSource,
      `SELECT service_id FROM object_storage_users
        WHERE (applied_version < desired_version OR (purge_after IS NOT NULL AND gateway_state <> 'purged' AND purge_after <= now()))
          AND (lease_until IS NULL OR lease_until < now())
          AND (last_attempt_at IS NULL OR last_attempt_at < now() - make_interval(secs => $1))
        LIMIT $2`,
      [idleSeconds, limit],
    );
    return rows.map((r) => r.service_id);
  }

  async usageTarget(serviceId: string): Promise<UsageRow | null> {
    const row = await sqlFirst<UsageRow>(
      this.dataSource,
      `SELECT u.service_id, s.account_id, s.name, u.region, u.quota_bytes, u.quota_objects, u.quota_notified, u.usage_updated_at
         FROM object_storage_users u JOIN services s ON s.id = u.service_id WHERE u.service_id = $1`,
      [serviceId],
    );
    return row ?? null;
  }

  /** Active services whose usage is older than `seconds`, oldest first. */
  async staleUsage(seconds: number, limit: number): Promise<string[]> {
    const rows = await sqlRows<{ service_id: string }>(
      this.dataSource,
      `SELECT u.service_id FROM object_storage_users u JOIN services s ON s.id = u.service_id
        WHERE s.status = 'active' AND u.gateway_state = 'active'
          AND (u.usage_updated_at IS NULL OR u.usage_updated_at < now() - make_interval(secs => $1))
        ORDER BY u.usage_updated_at NULLS FIRST LIMIT $2`,
      [seconds, limit],
    );
    return rows.map((r) => r.service_id);
  }

  /**
   * Stores usage read from the gateway, unless another process stored a reading within the last
   * `minAgeSeconds`; the quota level notified moves to `level`. Returns the previous level, or null when skipped.
   */
  async recordUsage(
    serviceId: string,
    usage: { usedBytes: number; objects: number; buckets: number },
    level: number,
    minAgeSeconds: number,
  ): Promise<number | null> {
    const row = await sqlFirst<{ previous: number }>(
      this.dataSource,
      `WITH p AS (SELECT quota_notified AS previous FROM object_storage_users WHERE service_id = $1)
       UPDATE object_storage_users u SET used_bytes = $2, used_objects = $3, bucket_count = $4, usage_updated_at = now(), quota_notified = $5
         FROM p
        WHERE u.service_id = $1 AND (u.usage_updated_at IS NULL OR u.usage_updated_at <= now() - make_interval(secs => $6))
        RETURNING p.previous`,
      [serviceId, usage.usedBytes, usage.objects, usage.buckets, level, minAgeSeconds],
    );
    return row ? row.previous : null;
  }

  /** `pending` while the gateway has not applied the newest change. */
  async states(serviceIds: string[], manager: EntityManager = this.dataSource.manager): Promise<Map<string, GatewayState | 'pending'>> {
    const rows = await sqlRows<{ service_id: string; state: GatewayState | 'pending' }>(
      manager,
      `SELECT service_id, CASE WHEN applied_version < desired_version THEN 'pending' ELSE gateway_state END AS state
         FROM object_storage_users WHERE service_id = ANY($1::uuid[])`,
      [serviceIds],
    );
    return new Map(rows.map((r) => [r.service_id, r.state]));
  }

  async regions(manager: EntityManager, serviceIds: string[]): Promise<Map<string, string>> {
    const rows = await sqlRows<{ service_id: string; region: string }>(
      manager,
      `SELECT service_id, region FROM object_storage_users WHERE service_id = ANY($1::uuid[])`,
      [serviceIds],
    );
    return new Map(rows.map((r) => [r.service_id, r.region]));
  }
}
