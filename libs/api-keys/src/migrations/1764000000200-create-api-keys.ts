import { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateApiKeys1764000000200 implements MigrationInterface {
  name = 'CreateApiKeys1764000000200';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE api_keys (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        account_id uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        name varchar(100) NOT NULL,
        prefix varchar(12) NOT NULL,
        key_hash char(64) NOT NULL,
        scopes text[] NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz,
        last_used_at timestamptz,
        revoked_at timestamptz,
        CONSTRAINT api_keys_hash_key UNIQUE (key_hash)
      )`);
    await db.query(`CREATE INDEX api_keys_account_list_idx ON api_keys (account_id, created_at DESC, id DESC) WHERE revoked_at IS NULL`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE api_keys`);
  }
}
