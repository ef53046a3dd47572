import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The events list's total without counting an account's entries (100,000 and more at a
 * provider's size). One counter per account, action and entity type ('' for none), kept by
 * statement triggers in the writing transaction, as service_counts is; the list sums the counters
 * for every filter but entityId and since (those count the matching rows, which the filter bounds).
 * Also the index for the entityType filter alone, newest first (the entity index is ordered by
 * entity_id first, so that filter sorted every entry of the type).
 */
export class ActivityCounts1764000002600 implements MigrationInterface {
  name = 'ActivityCounts1764000002600';

  async up(db: QueryRunner): Promise<void> {
    // A backfill or an index over a provider's tables outlasts the API's statement timeout (this transaction only).
    await db.query(`SET LOCAL statement_timeout = 0`);
    await db.query(`
      CREATE TABLE activity_counts (
        account_id uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        action varchar(60) NOT NULL,
        entity_type varchar(40) NOT NULL,
        n bigint NOT NULL,
        PRIMARY KEY (account_id, action, entity_type)
      )`);
    // Upserted in key order, so concurrent writers lock counters in the same order.
    await db.query(`
      CREATE FUNCTION activity_counts_apply() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN
          INSERT INTO activity_counts (account_id, action, entity_type, n)
          SELECT account_id, action, coalesce(entity_type, ''), count(*) FROM new_events
           GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
          ON CONFLICT (account_id, action, entity_type) DO UPDATE SET n = activity_counts.n + EXCLUDED.n;
        ELSIF TG_OP = 'DELETE' THEN
          INSERT INTO activity_counts (account_id, action, entity_type, n)
          SELECT o.account_id, o.action, coalesce(o.entity_type, ''), -count(*) FROM old_events o
           WHERE EXISTS (SELECT 1 FROM accounts a WHERE a.id = o.account_id)
           GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
          ON CONFLICT (account_id, action, entity_type) DO UPDATE SET n = activity_counts.n + EXCLUDED.n;
        ELSE
          INSERT INTO activity_counts (account_id, action, entity_type, n)
          SELECT account_id, action, entity_type, sum(delta) FROM (
            SELECT account_id, action, coalesce(entity_type, '') AS entity_type, 1 AS delta FROM new_events
            UNION ALL
            SELECT account_id, action, coalesce(entity_type, ''), -1 FROM old_events
          ) changes
           GROUP BY 1, 2, 3 HAVING sum(delta) <> 0 ORDER BY 1, 2, 3
          ON CONFLICT (account_id, action, entity_type) DO UPDATE SET n = activity_counts.n + EXCLUDED.n;
        END IF;
        RETURN NULL;
      END $$`);
    await db.query(`
      CREATE TRIGGER activity_counts_insert AFTER INSERT ON activity_events
        REFERENCING NEW TABLE AS new_events FOR EACH STATEMENT EXECUTE FUNCTION activity_counts_apply()`);
    await db.query(`
      CREATE TRIGGER activity_counts_update AFTER UPDATE ON activity_events
        REFERENCING OLD TABLE AS old_events NEW TABLE AS new_events FOR EACH STATEMENT EXECUTE FUNCTION activity_counts_apply()`);
    await db.query(`
      CREATE TRIGGER activity_counts_delete AFTER DELETE ON activity_events
        REFERENCING OLD TABLE AS old_events FOR EACH STATEMENT EXECUTE FUNCTION activity_counts_apply()`);
    await db.query(`
      INSERT INTO activity_counts (account_id, action, entity_type, n)
      SELECT account_id, action, coalesce(entity_type, ''), count(*) FROM activity_events GROUP BY 1, 2, 3`);
    await db.query(
      `CREATE INDEX IF NOT EXISTS activity_events_entity_type_idx ON activity_events (account_id, entity_type, created_at DESC, id DESC)`,
    );
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP INDEX activity_events_entity_type_idx`);
    await db.query(`DROP TABLE activity_counts`);
    await db.query(`DROP FUNCTION activity_counts_apply() CASCADE`);
  }
}
