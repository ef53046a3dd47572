import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The endpoint's lease names its holder (so only the holder renews or ends it) and
 * carries a poke (a job found it held, so the holder looks again before letting go); the pending
 * deliveries of an endpoint are found by the index, in the order they are claimed.
 */
export class WebhookEndpointLeaseHolder1764000002700 implements MigrationInterface {
  name = 'WebhookEndpointLeaseHolder1764000002700';

  async up(db: QueryRunner): Promise<void> {
    await db.query(
      `ALTER TABLE webhook_endpoints ADD COLUMN in_flight_holder uuid, ADD COLUMN in_flight_poked boolean NOT NULL DEFAULT false`,
    );
    await db.query(
      `CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (endpoint_id, next_attempt_at, created_at, id)
       WHERE status = 'pending'`,
    );
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP INDEX webhook_deliveries_due_idx`);
    await db.query(`ALTER TABLE webhook_endpoints DROP COLUMN in_flight_poked, DROP COLUMN in_flight_holder`);
  }
}
