import { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateNotifications1764000000700 implements MigrationInterface {
  name = 'CreateNotifications1764000000700';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE notifications (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        account_id uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        type varchar(40) NOT NULL,
        severity varchar(10) NOT NULL CONSTRAINT notifications_severity_check CHECK (severity IN ('info', 'warning', 'critical')),
        title varchar(200) NOT NULL,
        body text NOT NULL,
        link text,
        entity_type varchar(40),
        entity_id uuid,
        read_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await db.query(`CREATE INDEX notifications_account_list_idx ON notifications (account_id, created_at DESC, id DESC)`);
    // Unread list and unread count read only this (small) partial index.
    await db.query(`CREATE INDEX notifications_unread_idx ON notifications (account_id, created_at DESC, id DESC) WHERE read_at IS NULL`);
    // One "expiring" notice per API key.
    await db.query(
      `CREATE UNIQUE INDEX notifications_api_key_expiring_once ON notifications (account_id, entity_id) WHERE type = 'api_key_expiring'`,
    );
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE notifications`);
  }
}
