import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A deleted service sets its tickets' service_id to null, and a deleted account deletes
 * its attachments; without an index on the referencing column each of those is a scan of the whole
 * table, per service (an account's cleanup deletes every service it has).
 */
export class SupportForeignKeyIndexes1764000002610 implements MigrationInterface {
  name = 'SupportForeignKeyIndexes1764000002610';

  async up(db: QueryRunner): Promise<void> {
    // A backfill or an index over a provider's tables outlasts the API's statement timeout (this transaction only).
    await db.query(`SET LOCAL statement_timeout = 0`);
    await db.query(`CREATE INDEX IF NOT EXISTS tickets_service_idx ON tickets (service_id) WHERE service_id IS NOT NULL`);
    await db.query(`CREATE INDEX IF NOT EXISTS attachments_account_idx ON attachments (account_id)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP INDEX attachments_account_idx`);
    await db.query(`DROP INDEX tickets_service_idx`);
  }
}
