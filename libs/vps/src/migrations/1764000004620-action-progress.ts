import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Actions say how far they are (issue 58, point 6): `progress` 0-100 (0 queued, 100 succeeded, an
 * estimate between that never goes back) and `step`, a short sentence of what the action does now
 * (null once it has ended). Actions that ended before keep no step; the succeeded ones are at 100.
 */
export class ActionProgress1764000004620 implements MigrationInterface {
  name = 'ActionProgress1764000004620';

  async up(db: QueryRunner): Promise<void> {
    for (const table of ['instance_actions', 'volume_actions']) {
      await db.query(
        `ALTER TABLE ${table} ADD COLUMN progress smallint NOT NULL DEFAULT 0 CHECK (progress BETWEEN 0 AND 100), ADD COLUMN step varchar(200)`,
      );
      await db.query(`UPDATE ${table} SET progress = 100 WHERE status = 'succeeded'`);
    }
  }

  async down(db: QueryRunner): Promise<void> {
    for (const table of ['instance_actions', 'volume_actions'])
      await db.query(`ALTER TABLE ${table} DROP COLUMN progress, DROP COLUMN step`);
  }
}
