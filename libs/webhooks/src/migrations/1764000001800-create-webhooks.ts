import { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateWebhooks1764000001800 implements MigrationInterface {
  name = 'CreateWebhooks1764000001800';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE webhook_endpoints (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        account_id uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        url varchar(2048) NOT NULL,
        description varchar(200),
        events text[] NOT NULL,
        enabled boolean NOT NULL DEFAULT true,
        secret_sealed text NOT NULL,
        previous_secret_sealed text,
        previous_secret_expires_at timestamptz,
        failing_since timestamptz,
        in_flight_until timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await db.query(`CREATE INDEX webhook_endpoints_account_list_idx ON webhook_endpoints (account_id, created_at DESC, id DESC)`);
    await db.query(`
      CREATE TABLE webhook_deliveries (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        endpoint_id uuid NOT NULL REFERENCES webhook_endpoints(id) ON DELETE CASCADE,
        message_id varchar(40) NOT NULL,
        event_type varchar(64) NOT NULL,
        body text NOT NULL,
        status varchar(10) NOT NULL DEFAULT 'pending'
          CONSTRAINT webhook_deliveries_status_check CHECK (status IN ('pending', 'succeeded', 'failed')),
        attempts integer NOT NULL DEFAULT 0,
        last_response_code integer,
        last_duration_ms integer,
        last_error varchar(500),
        last_attempt_at timestamptz,
        next_attempt_at timestamptz,
        retry_until timestamptz NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await db.query(`CREATE INDEX webhook_deliveries_endpoint_list_idx ON webhook_deliveries (endpoint_id, created_at DESC, id DESC)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE webhook_deliveries`);
    await db.query(`DROP TABLE webhook_endpoints`);
  }
}
