import { MigrationInterface, QueryRunner } from 'typeorm';

/** A deleted account deletes its MFA challenges; without this index, by a scan of the table. */
export class MfaChallengesAccountIndex1764000002620 implements MigrationInterface {
  name = 'MfaChallengesAccountIndex1764000002620';

  async up(db: QueryRunner): Promise<void> {
    // A backfill or an index over a provider's tables outlasts the API's statement timeout (this transaction only).
    await db.query(`SET LOCAL statement_timeout = 0`);
    await db.query(`CREATE INDEX IF NOT EXISTS mfa_challenges_account_idx ON mfa_challenges (account_id)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP INDEX mfa_challenges_account_idx`);
  }
}
