import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The gateway user of each object storage service: the limits from its product, the state the
 * gateway should be in (desired_version, bumped by every change) and what it last confirmed
 * (applied_version, gateway_state), a lease so one process works on it at a time, the purge time
 * of a terminated service, and the usage last read from the gateway.
 */
export class ObjectStorageUsers1764000002310 implements MigrationInterface {
  name = 'ObjectStorageUsers1764000002310';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE object_storage_users (
        service_id uuid PRIMARY KEY REFERENCES services(id) ON DELETE CASCADE,
        region varchar(32) NOT NULL,
        quota_bytes bigint NOT NULL,
        quota_objects bigint NOT NULL,
        max_buckets integer NOT NULL,
        desired_version integer NOT NULL DEFAULT 1,
        applied_version integer NOT NULL DEFAULT 0,
        gateway_state varchar(10) NOT NULL DEFAULT 'pending'
          CONSTRAINT object_storage_users_state_check CHECK (gateway_state IN ('pending', 'active', 'suspended', 'closed', 'purged')),
        purge_after timestamptz,
        lease_until timestamptz,
        last_attempt_at timestamptz,
        last_error varchar(500),
        used_bytes bigint,
        used_objects bigint,
        bucket_count integer,
        usage_updated_at timestamptz,
        quota_notified smallint NOT NULL DEFAULT 0
      )`);
    // The reconciliation scan: what the gateway has not caught up with, and purges to come.
    await db.query(
      `CREATE INDEX object_storage_users_unsettled_idx ON object_storage_users (service_id)
        WHERE applied_version < desired_version OR (purge_after IS NOT NULL AND gateway_state <> 'purged')`,
    );
    // Existing services were simulated: nothing on a gateway to catch up with.
    await db.query(`
      INSERT INTO object_storage_users (service_id, region, quota_bytes, quota_objects, max_buckets, desired_version, applied_version, gateway_state)
      SELECT s.id, coalesce(c.region, 'eu-central-1'),
             ((p.specs->>'storageGb')::numeric * 1000000000)::bigint,
             coalesce((p.specs->>'maxObjects')::bigint, 1000000),
             coalesce((p.specs->>'maxBuckets')::integer, 100),
             1, 1,
             CASE WHEN s.status = 'active' THEN 'active' WHEN s.status = 'terminated' THEN 'purged' ELSE 'suspended' END
        FROM services s JOIN products p ON p.id = s.product_id
        LEFT JOIN object_storage_credentials c ON c.service_id = s.id
       WHERE s.type = 'object_storage'`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE object_storage_users`);
  }
}
