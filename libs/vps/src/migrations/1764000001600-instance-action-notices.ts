import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A succeeded action can carry a notice: the hypervisor got there another way (a forced power-off).
 * Adopting a machine checks that no live VPS has it yet.
 */
export class InstanceActionNotices1764000001600 implements MigrationInterface {
  name = 'InstanceActionNotices1764000001600';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE instance_actions ADD COLUMN notice_code varchar(64), ADD COLUMN notice_message varchar(500)`);
    await db.query(`CREATE INDEX vps_instances_provider_ref_idx ON vps_instances (provider_ref) WHERE provider_ref IS NOT NULL`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP INDEX vps_instances_provider_ref_idx`);
    await db.query(`ALTER TABLE instance_actions DROP COLUMN notice_code, DROP COLUMN notice_message`);
  }
}
