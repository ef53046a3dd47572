import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The deliveries list's total without counting an endpoint's deliveries (10,000 and more
 * at a provider's size): one counter per endpoint (the list has no filter), kept by statement
 * triggers in the writing transaction, as notification_counts is. A delivery never changes
 * endpoint, so inserts and deletes (the retention purge, an endpoint's deletion) are all it counts;
 * an attempt's UPDATE costs nothing more.
 */
export class WebhookDeliveryCounts1764000002650 implements MigrationInterface {
  name = 'WebhookDeliveryCounts1764000002650';

  async up(db: QueryRunner): Promise<void> {
    // A backfill over a provider's tables outlasts the API's statement timeout (this transaction only).
    await db.query(`SET LOCAL statement_timeout = 0`);
    await db.query(`
      CREATE TABLE webhook_delivery_counts (
        endpoint_id uuid PRIMARY KEY REFERENCES webhook_endpoints(id) ON DELETE CASCADE,
        n bigint NOT NULL
      )`);
    // Upserted in key order, so concurrent writers (fan-out, the purge's batches) lock counters in
    // the same order; a deleted endpoint's deliveries are not counted back (its counter goes with it).
    await db.query(`
      CREATE FUNCTION webhook_delivery_counts_apply() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN
          INSERT INTO webhook_delivery_counts (endpoint_id, n)
          SELECT endpoint_id, count(*) FROM new_rows GROUP BY 1 ORDER BY 1
          ON CONFLICT (endpoint_id) DO UPDATE SET n = webhook_delivery_counts.n + EXCLUDED.n;
        ELSE
          INSERT INTO webhook_delivery_counts (endpoint_id, n)
          SELECT o.endpoint_id, -count(*) FROM old_rows o
           WHERE EXISTS (SELECT 1 FROM webhook_endpoints e WHERE e.id = o.endpoint_id)
           GROUP BY 1 ORDER BY 1
          ON CONFLICT (endpoint_id) DO UPDATE SET n = webhook_delivery_counts.n + EXCLUDED.n;
        END IF;
        RETURN NULL;
      END $$`);
    await db.query(`
      CREATE TRIGGER webhook_delivery_counts_insert AFTER INSERT ON webhook_deliveries
        REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION webhook_delivery_counts_apply()`);
    await db.query(`
      CREATE TRIGGER webhook_delivery_counts_delete AFTER DELETE ON webhook_deliveries
        REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION webhook_delivery_counts_apply()`);
    await db.query(`
      INSERT INTO webhook_delivery_counts (endpoint_id, n)
      SELECT endpoint_id, count(*) FROM webhook_deliveries GROUP BY 1`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE webhook_delivery_counts`);
    await db.query(`DROP FUNCTION webhook_delivery_counts_apply() CASCADE`);
  }
}
