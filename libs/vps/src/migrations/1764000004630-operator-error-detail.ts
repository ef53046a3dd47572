import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What the hypervisor itself said when it refused (issue 58, point 5), for operators only: an
 * action's `error_detail` (never in the customer API, which keeps `error_message`), and room for it
 * in a provisioning's `last_error`, which only the operator's command line prints.
 */
export class OperatorErrorDetail1764000004630 implements MigrationInterface {
  name = 'OperatorErrorDetail1764000004630';

  async up(db: QueryRunner): Promise<void> {
    for (const table of ['instance_actions', 'volume_actions'])
      await db.query(`ALTER TABLE ${table} ADD COLUMN error_detail varchar(2000)`);
    await db.query(`ALTER TABLE vps_provisioning ALTER COLUMN last_error TYPE varchar(2000)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE vps_provisioning ALTER COLUMN last_error TYPE varchar(500) USING left(last_error, 500)`);
    for (const table of ['instance_actions', 'volume_actions']) await db.query(`ALTER TABLE ${table} DROP COLUMN error_detail`);
  }
}
