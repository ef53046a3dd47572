import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Rescue mode: a row per VPS booted from the rescue system, until it boots its own disk
 * again (the customer's unrescue, or by itself at ends_at); the operator's rescue images; the two
 * actions. The rescue's root password is stored nowhere: the action keeps only its SHA-512-crypt hash.
 */
export class RescueMode1764000003300 implements MigrationInterface {
  name = 'RescueMode1764000003300';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE vps_rescues (
        service_id uuid PRIMARY KEY REFERENCES services(id) ON DELETE CASCADE,
        image_id uuid NOT NULL REFERENCES images(id),
        action_id uuid NOT NULL,
        started_at timestamptz NOT NULL DEFAULT now(),
        ends_at timestamptz NOT NULL
      )`);
    await db.query(`CREATE INDEX vps_rescues_ends_at_idx ON vps_rescues (ends_at)`);
    await db.query(`ALTER TABLE images ADD COLUMN rescue boolean NOT NULL DEFAULT false`);
    await db.query(`ALTER TABLE instance_actions DROP CONSTRAINT instance_actions_type_check`);
    await db.query(
      `ALTER TABLE instance_actions ADD CONSTRAINT instance_actions_type_check
         CHECK (type IN ('start', 'stop', 'reboot', 'rebuild', 'snapshot', 'restore', 'rescue', 'unrescue'))`,
    );
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DELETE FROM instance_actions WHERE type IN ('rescue', 'unrescue')`);
    await db.query(`ALTER TABLE instance_actions DROP CONSTRAINT instance_actions_type_check`);
    await db.query(
      `ALTER TABLE instance_actions ADD CONSTRAINT instance_actions_type_check CHECK (type IN ('start', 'stop', 'reboot', 'rebuild', 'snapshot', 'restore'))`,
    );
    await db.query(`ALTER TABLE images DROP COLUMN rescue`);
    await db.query(`DROP TABLE vps_rescues`);
  }
}
