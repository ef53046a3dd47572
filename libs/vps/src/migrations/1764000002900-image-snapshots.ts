import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Snapshots: an image of one account, made from a VPS's disk. System images keep
 * account_id NULL; a snapshot is `creating` until its action ends. The snapshot action records
 * what it made (`result`: the consistency the hypervisor reached), the simulator a size per task.
 */
export class ImageSnapshots1764000002900 implements MigrationInterface {
  name = 'ImageSnapshots1764000002900';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      ALTER TABLE images
        ADD COLUMN type varchar(16) NOT NULL DEFAULT 'system' CONSTRAINT images_type_check CHECK (type IN ('system', 'snapshot')),
        ADD COLUMN account_id uuid REFERENCES accounts(id) ON DELETE CASCADE,
        ADD COLUMN created_from_service_id uuid REFERENCES services(id) ON DELETE SET NULL,
        ADD CONSTRAINT images_owner_check CHECK ((type = 'snapshot') = (account_id IS NOT NULL))`);
    await db.query(`ALTER TABLE images DROP CONSTRAINT images_status_check`);
    await db.query(
      `ALTER TABLE images ADD CONSTRAINT images_status_check CHECK (status IN ('creating', 'uploading', 'available', 'deleted'))`,
    );
    await db.query(
      `CREATE INDEX images_account_list_idx ON images (account_id, created_at DESC, id DESC) WHERE account_id IS NOT NULL AND status <> 'deleted'`,
    );
    await db.query(`CREATE INDEX images_created_from_idx ON images (created_from_service_id) WHERE created_from_service_id IS NOT NULL`);

    await db.query(`ALTER TABLE instance_actions DROP CONSTRAINT instance_actions_type_check`);
    await db.query(
      `ALTER TABLE instance_actions ADD CONSTRAINT instance_actions_type_check CHECK (type IN ('start', 'stop', 'reboot', 'rebuild', 'snapshot'))`,
    );
    await db.query(`ALTER TABLE instance_actions ADD COLUMN result jsonb`);
    await db.query(`ALTER TABLE compute_simulator_tasks ADD COLUMN size_bytes bigint`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE compute_simulator_tasks DROP COLUMN size_bytes`);
    await db.query(`DELETE FROM instance_actions WHERE type = 'snapshot'`);
    await db.query(`ALTER TABLE instance_actions DROP COLUMN result`);
    await db.query(`ALTER TABLE instance_actions DROP CONSTRAINT instance_actions_type_check`);
    await db.query(
      `ALTER TABLE instance_actions ADD CONSTRAINT instance_actions_type_check CHECK (type IN ('start', 'stop', 'reboot', 'rebuild'))`,
    );
    await db.query(`DELETE FROM images WHERE type = 'snapshot'`);
    await db.query(`DROP INDEX images_created_from_idx`);
    await db.query(`DROP INDEX images_account_list_idx`);
    await db.query(`ALTER TABLE images DROP CONSTRAINT images_status_check`);
    await db.query(`ALTER TABLE images ADD CONSTRAINT images_status_check CHECK (status IN ('uploading', 'available', 'deleted'))`);
    await db.query(
      `ALTER TABLE images DROP CONSTRAINT images_owner_check, DROP COLUMN created_from_service_id, DROP COLUMN account_id, DROP COLUMN type`,
    );
  }
}
