import { MigrationInterface, QueryRunner } from 'typeorm';

/** Cloud firewalls (issue 52): an account's rule sets, and which VPS each is applied to and whether its hypervisor enforces it yet. */
export class Firewalls1764000004100 implements MigrationInterface {
  name = 'Firewalls1764000004100';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE firewalls (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        account_id uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        name varchar(64) NOT NULL,
        rules jsonb NOT NULL DEFAULT '[]',
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT firewalls_account_name_key UNIQUE (account_id, name)
      )`);
    await db.query(`CREATE INDEX firewalls_account_list_idx ON firewalls (account_id, created_at DESC, id DESC)`);
    await db.query(`
      CREATE TABLE firewall_attachments (
        firewall_id uuid NOT NULL REFERENCES firewalls(id) ON DELETE CASCADE,
        service_id uuid NOT NULL REFERENCES services(id) ON DELETE CASCADE,
        status varchar(16) NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'applied', 'failed')),
        generation integer NOT NULL DEFAULT 1,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (firewall_id, service_id)
      )`);
    await db.query(`CREATE INDEX firewall_attachments_service_idx ON firewall_attachments (service_id)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE firewall_attachments`);
    await db.query(`DROP TABLE firewalls`);
  }
}
