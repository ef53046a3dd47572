import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The credential a console token was issued to: the token is refused, and the
 * connection it became is closed, once that session ends or that API key is revoked or expires.
 * Tokens issued before this column existed have none and are refused (they live 60 seconds).
 */
export class ConsoleCredentials1764000002100 implements MigrationInterface {
  name = 'ConsoleCredentials1764000002100';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      ALTER TABLE console_sessions
        ADD COLUMN credential_kind varchar(20) CONSTRAINT console_sessions_credential_kind_check CHECK (credential_kind IN ('access_token', 'api_key')),
        ADD COLUMN credential_id uuid`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE console_sessions DROP COLUMN credential_kind, DROP COLUMN credential_id`);
  }
}
