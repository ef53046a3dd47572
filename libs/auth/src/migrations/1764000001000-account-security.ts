import { MigrationInterface, QueryRunner } from 'typeorm';

/** Where a session signs in from, TOTP second factor, and single-use mailed tokens. */
export class AccountSecurity1764000001000 implements MigrationInterface {
  name = 'AccountSecurity1764000001000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE accounts ADD COLUMN email_verified_at timestamptz`);
    await db.query(
      `ALTER TABLE sessions ADD COLUMN ip varchar(64), ADD COLUMN user_agent varchar(512), ADD COLUMN last_used_at timestamptz`,
    );
    await db.query(`CREATE INDEX sessions_account_list_idx ON sessions (account_id, created_at DESC, id DESC) WHERE revoked_at IS NULL`);
    await db.query(`
      CREATE TABLE account_mfa (
        account_id uuid PRIMARY KEY REFERENCES accounts(id) ON DELETE CASCADE,
        secret_sealed text NOT NULL,
        enabled_at timestamptz,
        last_time_step bigint,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await db.query(`
      CREATE TABLE mfa_recovery_codes (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        account_id uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        code_hash char(64) NOT NULL,
        used_at timestamptz
      )`);
    await db.query(`CREATE INDEX mfa_recovery_codes_account_idx ON mfa_recovery_codes (account_id)`);
    await db.query(`
      CREATE TABLE mfa_challenges (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        account_id uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        token_hash char(64) NOT NULL,
        ip varchar(64),
        user_agent varchar(512),
        failed_attempts int NOT NULL DEFAULT 0,
        expires_at timestamptz NOT NULL,
        ended_at timestamptz,
        CONSTRAINT mfa_challenges_hash_key UNIQUE (token_hash)
      )`);
    await db.query(`
      CREATE TABLE account_tokens (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        account_id uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        purpose varchar(20) NOT NULL,
        email varchar(254) NOT NULL,
        token_hash char(64) NOT NULL,
        expires_at timestamptz NOT NULL,
        used_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT account_tokens_hash_key UNIQUE (token_hash)
      )`);
    await db.query(`CREATE INDEX account_tokens_account_idx ON account_tokens (account_id, purpose)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE account_tokens`);
    await db.query(`DROP TABLE mfa_challenges`);
    await db.query(`DROP TABLE mfa_recovery_codes`);
    await db.query(`DROP TABLE account_mfa`);
    await db.query(`DROP INDEX sessions_account_list_idx`);
    await db.query(`ALTER TABLE sessions DROP COLUMN ip, DROP COLUMN user_agent, DROP COLUMN last_used_at`);
    await db.query(`ALTER TABLE accounts DROP COLUMN email_verified_at`);
  }
}
