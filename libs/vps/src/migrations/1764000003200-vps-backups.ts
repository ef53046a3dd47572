import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Backups: a VPS's daily copy of its disk, kept in an object store off the
 * hypervisor. `vps_backup_schedules` holds the VPSes with backups enabled and when each is next
 * due; `vps_backups` one row per copy, `running` until its upload ends (at most one per VPS),
 * `heartbeat_at` moved by each part uploaded so a copy whose process died is seen and failed.
 * A restore is an instance action of its own type.
 */
export class VpsBackups1764000003200 implements MigrationInterface {
  name = 'VpsBackups1764000003200';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE vps_backup_schedules (
        service_id uuid PRIMARY KEY REFERENCES services(id) ON DELETE CASCADE,
        enabled_at timestamptz NOT NULL DEFAULT now(),
        next_run_at timestamptz NOT NULL
      )`);
    await db.query(`CREATE INDEX vps_backup_schedules_due_idx ON vps_backup_schedules (next_run_at)`);
    await db.query(`
      CREATE TABLE vps_backups (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        service_id uuid NOT NULL REFERENCES services(id) ON DELETE CASCADE,
        account_id uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        status varchar(16) NOT NULL CONSTRAINT vps_backups_status_check CHECK (status IN ('running', 'available', 'failed', 'deleting')),
        trigger varchar(16) NOT NULL CONSTRAINT vps_backups_trigger_check CHECK (trigger IN ('schedule', 'operator')),
        storage_key text NOT NULL,
        size_bytes bigint,
        disk_bytes bigint,
        consistency varchar(16) CONSTRAINT vps_backups_consistency_check CHECK (consistency IN ('filesystem', 'crash')),
        error_code varchar(64),
        error_message varchar(500),
        created_at timestamptz NOT NULL DEFAULT now(),
        heartbeat_at timestamptz NOT NULL DEFAULT now(),
        finished_at timestamptz,
        delete_after timestamptz
      )`);
    await db.query(`CREATE INDEX vps_backups_service_idx ON vps_backups (service_id, created_at DESC, id DESC)`);
    await db.query(`CREATE UNIQUE INDEX vps_backups_one_running_idx ON vps_backups (service_id) WHERE status = 'running'`);
    await db.query(`CREATE INDEX vps_backups_running_idx ON vps_backups (heartbeat_at) WHERE status = 'running'`);
    await db.query(`CREATE INDEX vps_backups_delete_after_idx ON vps_backups (delete_after) WHERE delete_after IS NOT NULL`);
    await db.query(`ALTER TABLE instance_actions DROP CONSTRAINT instance_actions_type_check`);
    await db.query(
      `ALTER TABLE instance_actions ADD CONSTRAINT instance_actions_type_check CHECK (type IN ('start', 'stop', 'reboot', 'rebuild', 'snapshot', 'restore'))`,
    );
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DELETE FROM instance_actions WHERE type = 'restore'`);
    await db.query(`ALTER TABLE instance_actions DROP CONSTRAINT instance_actions_type_check`);
    await db.query(
      `ALTER TABLE instance_actions ADD CONSTRAINT instance_actions_type_check CHECK (type IN ('start', 'stop', 'reboot', 'rebuild', 'snapshot'))`,
    );
    await db.query(`DROP TABLE vps_backups`);
    await db.query(`DROP TABLE vps_backup_schedules`);
  }
}
