import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Replays are sealed and bound to the credential that made them. Earlier
 * replays of a webhook's creation or rotation held its signing secret in clear: they go.
 */
export class SealIdempotencyReplays1764000002800 implements MigrationInterface {
  name = 'SealIdempotencyReplays1764000002800';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE idempotency_keys ADD COLUMN credential_id uuid, ADD COLUMN response_sealed text`);
    await db.query(`DELETE FROM idempotency_keys WHERE jsonb_typeof(response_body) = 'object' AND response_body ? 'secret'`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DELETE FROM idempotency_keys WHERE response_sealed IS NOT NULL`);
    await db.query(`ALTER TABLE idempotency_keys DROP COLUMN credential_id, DROP COLUMN response_sealed`);
  }
}
