import { MigrationInterface, QueryRunner } from 'typeorm';

/** The account a session's tokens act on (a login may belong to several): what a refresh keeps. Null: the login's first. */
export class SessionCurrentAccount1764000004810 implements MigrationInterface {
  name = 'SessionCurrentAccount1764000004810';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE sessions ADD COLUMN current_account_id uuid REFERENCES accounts(id) ON DELETE SET NULL`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE sessions DROP COLUMN current_account_id`);
  }
}
