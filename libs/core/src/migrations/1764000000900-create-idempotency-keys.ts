import { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateIdempotencyKeys1764000000900 implements MigrationInterface {
  name = 'CreateIdempotencyKeys1764000000900';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE idempotency_keys (
        account_id uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        key varchar(255) NOT NULL,
        request_hash char(64) NOT NULL,
        completed boolean NOT NULL DEFAULT false,
        response_status smallint,
        response_body jsonb,
        response_location text,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (account_id, key)
      )`);
    await db.query(`CREATE INDEX idempotency_keys_created_idx ON idempotency_keys (created_at)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE idempotency_keys`);
  }
}
