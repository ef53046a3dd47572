import { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateAccounts1764000000100 implements MigrationInterface {
  name = 'CreateAccounts1764000000100';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE accounts (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        email varchar(254) NOT NULL,
        name varchar(100) NOT NULL,
        password_hash text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT accounts_email_key UNIQUE (email)
      )`);
    await db.query(`
      CREATE TABLE sessions (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        account_id uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        revoked_at timestamptz
      )`);
    await db.query(`CREATE INDEX sessions_account_idx ON sessions (account_id) WHERE revoked_at IS NULL`);
    await db.query(`
      CREATE TABLE refresh_tokens (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        session_id uuid NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        token_hash char(64) NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        used_at timestamptz,
        CONSTRAINT refresh_tokens_hash_key UNIQUE (token_hash)
      )`);
    await db.query(`CREATE INDEX refresh_tokens_session_idx ON refresh_tokens (session_id)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE refresh_tokens`);
    await db.query(`DROP TABLE sessions`);
    await db.query(`DROP TABLE accounts`);
  }
}
