import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Backups of a deleted account: deleting an account deletes its services' backup rows
 * by cascade, in the database alone, and the object each named would stay in the bucket with no
 * row left to find it. A statement trigger keeps the key of every backup row deleted; the backups
 * pass deletes those objects and forgets the keys. The pass's own deletes (an object already gone)
 * forget theirs in the same transaction.
 */
export class VpsBackupOrphans1764000003600 implements MigrationInterface {
  name = 'VpsBackupOrphans1764000003600';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE vps_backup_orphans (
        storage_key text PRIMARY KEY,
        orphaned_at timestamptz NOT NULL DEFAULT now()
      )`);
    await db.query(`CREATE INDEX vps_backup_orphans_orphaned_idx ON vps_backup_orphans (orphaned_at)`);
    await db.query(`
      CREATE FUNCTION vps_backup_rows_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO vps_backup_orphans (storage_key) SELECT storage_key FROM gone ON CONFLICT (storage_key) DO NOTHING;
        RETURN NULL;
      END $$`);
    await db.query(`
      CREATE TRIGGER vps_backups_orphans AFTER DELETE ON vps_backups
        REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION vps_backup_rows_deleted()`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TRIGGER vps_backups_orphans ON vps_backups`);
    await db.query(`DROP FUNCTION vps_backup_rows_deleted()`);
    await db.query(`DROP TABLE vps_backup_orphans`);
  }
}
