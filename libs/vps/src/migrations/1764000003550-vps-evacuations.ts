import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A host that dies: one row per VPS the operator's `host:evacuate` took off a host. It
 * says where the VPS went and how (`restored` from a backup, `rebuilt` from its image, `failed`), so
 * a second run goes on where the first stopped, and whether the old host's stale domain and disks
 * were removed once it answered again (`stale_removed_at`).
 */
export class VpsEvacuations1764000003550 implements MigrationInterface {
  name = 'VpsEvacuations1764000003550';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE vps_evacuations (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        service_id uuid NOT NULL REFERENCES services(id) ON DELETE CASCADE,
        from_host_id uuid NOT NULL REFERENCES hosts(id) ON DELETE CASCADE,
        to_host_id uuid REFERENCES hosts(id) ON DELETE SET NULL,
        status varchar(16) NOT NULL CONSTRAINT vps_evacuations_status_check CHECK (status IN ('running', 'restored', 'rebuilt', 'failed')),
        backup_id uuid,
        plan jsonb,
        error_code varchar(64),
        error_message text,
        started_at timestamptz NOT NULL DEFAULT now(),
        finished_at timestamptz,
        stale_removed_at timestamptz,
        CONSTRAINT vps_evacuations_service_from_key UNIQUE (service_id, from_host_id)
      )`);
    await db.query(
      `CREATE INDEX vps_evacuations_stale_idx ON vps_evacuations (from_host_id) WHERE stale_removed_at IS NULL AND status IN ('restored', 'rebuilt')`,
    );
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE vps_evacuations`);
  }
}
