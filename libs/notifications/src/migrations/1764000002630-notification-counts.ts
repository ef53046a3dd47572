import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The notifications list's total without counting an account's notifications (50,000
 * and more at a provider's size): one counter per account and read state, kept by statement
 * triggers in the writing transaction, as service_counts is.
 */
export class NotificationCounts1764000002630 implements MigrationInterface {
  name = 'NotificationCounts1764000002630';

  async up(db: QueryRunner): Promise<void> {
    // A backfill or an index over a provider's tables outlasts the API's statement timeout (this transaction only).
    await db.query(`SET LOCAL statement_timeout = 0`);
    await db.query(`
      CREATE TABLE notification_counts (
        account_id uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        unread boolean NOT NULL,
        n bigint NOT NULL,
        PRIMARY KEY (account_id, unread)
      )`);
    // Upserted in key order, so concurrent writers lock counters in the same order; a deleted
    // account's rows are not counted back (its counters go with it).
    await db.query(`
      CREATE FUNCTION notification_counts_apply() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN
          INSERT INTO notification_counts (account_id, unread, n)
          SELECT account_id, read_at IS NULL, count(*) FROM new_rows GROUP BY 1, 2 ORDER BY 1, 2
          ON CONFLICT (account_id, unread) DO UPDATE SET n = notification_counts.n + EXCLUDED.n;
        ELSIF TG_OP = 'DELETE' THEN
          INSERT INTO notification_counts (account_id, unread, n)
          SELECT o.account_id, o.read_at IS NULL, -count(*) FROM old_rows o
           WHERE EXISTS (SELECT 1 FROM accounts a WHERE a.id = o.account_id)
           GROUP BY 1, 2 ORDER BY 1, 2
          ON CONFLICT (account_id, unread) DO UPDATE SET n = notification_counts.n + EXCLUDED.n;
        ELSE
          INSERT INTO notification_counts (account_id, unread, n)
          SELECT account_id, unread, sum(delta) FROM (
            SELECT account_id, read_at IS NULL AS unread, 1 AS delta FROM new_rows
            UNION ALL
            SELECT account_id, read_at IS NULL, -1 FROM old_rows
          ) changes
           GROUP BY 1, 2 HAVING sum(delta) <> 0 ORDER BY 1, 2
          ON CONFLICT (account_id, unread) DO UPDATE SET n = notification_counts.n + EXCLUDED.n;
        END IF;
        RETURN NULL;
      END $$`);
    await db.query(`
      CREATE TRIGGER notification_counts_insert AFTER INSERT ON notifications
        REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION notification_counts_apply()`);
    await db.query(`
      CREATE TRIGGER notification_counts_update AFTER UPDATE ON notifications
        REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION notification_counts_apply()`);
    await db.query(`
      CREATE TRIGGER notification_counts_delete AFTER DELETE ON notifications
        REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION notification_counts_apply()`);
    await db.query(`
      INSERT INTO notification_counts (account_id, unread, n)
      SELECT account_id, read_at IS NULL, count(*) FROM notifications GROUP BY 1, 2`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE notification_counts`);
    await db.query(`DROP FUNCTION notification_counts_apply() CASCADE`);
  }
}
