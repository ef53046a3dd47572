import { MigrationInterface, QueryRunner } from 'typeorm';

/** Issue 30: a deleted account deletes its MFA challenges; without this index, by a scan of the table. */
export class MfaChallengesAccountIndex1764000002620 implements MigrationInterface {
  name = 'MfaChallengesAccountIndex1764000002620';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`CREATE INDEX mfa_challenges_account_idx ON mfa_challenges (account_id)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP INDEX mfa_challenges_account_idx`);
  }
}
