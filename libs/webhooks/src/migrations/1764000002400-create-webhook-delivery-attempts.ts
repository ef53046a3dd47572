import { MigrationInterface, QueryRunner } from 'typeorm';

/** Every attempt of a delivery: the deliveries row keeps only the last one. */
export class CreateWebhookDeliveryAttempts1764000002400 implements MigrationInterface {
  name = 'CreateWebhookDeliveryAttempts1764000002400';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE webhook_delivery_attempts (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        delivery_id uuid NOT NULL REFERENCES webhook_deliveries(id) ON DELETE CASCADE,
        attempt integer NOT NULL,
        result varchar(16) NOT NULL
          CONSTRAINT webhook_delivery_attempts_result_check
          CHECK (result IN ('succeeded', 'http_error', 'network_error', 'timeout', 'refused')),
        response_code integer,
        duration_ms integer NOT NULL,
        error varchar(500),
        response_headers jsonb,
        response_headers_truncated boolean NOT NULL DEFAULT false,
        response_body text,
        response_body_encoding varchar(6),
        response_body_truncated boolean NOT NULL DEFAULT false,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await db.query(`CREATE INDEX webhook_delivery_attempts_list_idx ON webhook_delivery_attempts (delivery_id, created_at DESC, id DESC)`);
    // The retention purge (finished deliveries by their last attempt).
    await db.query(
      `CREATE INDEX webhook_deliveries_retention_idx ON webhook_deliveries ((coalesce(last_attempt_at, created_at))) WHERE status <> 'pending'`,
    );
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP INDEX webhook_deliveries_retention_idx`);
    await db.query(`DROP TABLE webhook_delivery_attempts`);
  }
}
