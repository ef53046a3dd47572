import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The tickets list's total without counting an account's tickets (2,000 and more at a
 * provider's size): one counter per account and status (the list's one filter), kept by statement
 * triggers in the writing transaction, as notification_counts is.
 */
export class TicketCounts1764000002640 implements MigrationInterface {
  name = 'TicketCounts1764000002640';

  async up(db: QueryRunner): Promise<void> {
    // A backfill over a provider's tables outlasts the API's statement timeout (this transaction only).
    await db.query(`SET LOCAL statement_timeout = 0`);
    await db.query(`
      CREATE TABLE ticket_counts (
        account_id uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        status varchar(20) NOT NULL,
        n bigint NOT NULL,
        PRIMARY KEY (account_id, status)
      )`);
    // Upserted in key order, so concurrent writers lock counters in the same order; a deleted
    // account's rows are not counted back (its counters go with it).
    await db.query(`
      CREATE FUNCTION ticket_counts_apply() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN
          INSERT INTO ticket_counts (account_id, status, n)
          SELECT account_id, status, count(*) FROM new_rows GROUP BY 1, 2 ORDER BY 1, 2
          ON CONFLICT (account_id, status) DO UPDATE SET n = ticket_counts.n + EXCLUDED.n;
        ELSIF TG_OP = 'DELETE' THEN
          INSERT INTO ticket_counts (account_id, status, n)
          SELECT o.account_id, o.status, -count(*) FROM old_rows o
           WHERE EXISTS (SELECT 1 FROM accounts a WHERE a.id = o.account_id)
           GROUP BY 1, 2 ORDER BY 1, 2
          ON CONFLICT (account_id, status) DO UPDATE SET n = ticket_counts.n + EXCLUDED.n;
        ELSE
          INSERT INTO ticket_counts (account_id, status, n)
          SELECT account_id, status, sum(delta) FROM (
            SELECT account_id, status, 1 AS delta FROM new_rows
            UNION ALL
            SELECT account_id, status, -1 FROM old_rows
          ) changes
           GROUP BY 1, 2 HAVING sum(delta) <> 0 ORDER BY 1, 2
          ON CONFLICT (account_id, status) DO UPDATE SET n = ticket_counts.n + EXCLUDED.n;
        END IF;
        RETURN NULL;
      END $$`);
    await db.query(`
      CREATE TRIGGER ticket_counts_insert AFTER INSERT ON tickets
        REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION ticket_counts_apply()`);
    // Every UPDATE (a trigger with transition tables cannot name columns); one that keeps the statuses adds nothing.
    await db.query(`
      CREATE TRIGGER ticket_counts_update AFTER UPDATE ON tickets
        REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION ticket_counts_apply()`);
    await db.query(`
      CREATE TRIGGER ticket_counts_delete AFTER DELETE ON tickets
        REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION ticket_counts_apply()`);
    await db.query(`
      INSERT INTO ticket_counts (account_id, status, n)
      SELECT account_id, status, count(*) FROM tickets GROUP BY 1, 2`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE ticket_counts`);
    await db.query(`DROP FUNCTION ticket_counts_apply() CASCADE`);
  }
}
