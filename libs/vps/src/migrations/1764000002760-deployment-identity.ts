import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * One row, this deployment's id, marked on every domain it defines so that two
 * deployments sharing a hypervisor each remove only their own orphans. Written at first use, not
 * here, so databases copied from one migrated template (tests, a fresh staging) get ids of their own.
 */
export class DeploymentIdentity1764000002760 implements MigrationInterface {
  name = 'DeploymentIdentity1764000002760';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE deployment_identity (
        singleton boolean PRIMARY KEY DEFAULT true CONSTRAINT deployment_identity_one_row CHECK (singleton),
        id uuid NOT NULL DEFAULT gen_random_uuid(),
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE deployment_identity`);
  }
}
