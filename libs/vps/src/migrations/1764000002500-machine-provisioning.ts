import { MigrationInterface, QueryRunner } from 'typeorm';

const OLD_STATES = `'running', 'stopped', 'starting', 'stopping'`;
const NEW_STATES = `'running', 'stopped', 'starting', 'stopping', 'provisioning', 'error'`;

/**
 * A VPS's machine is made by a durable job (`vps_provisioning`: what to make, a lease so
 * one process works on it at a time, attempts and the last error), the VPS shows `provisioning`
 * until it ends and `error` when it failed for good or its machine vanished; reconciliation
 * remembers when it first saw each `svc-` domain or volume of no live service (`hypervisor_orphans`).
 */
export class MachineProvisioning1764000002500 implements MigrationInterface {
  name = 'MachineProvisioning1764000002500';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE vps_instances DROP CONSTRAINT vps_instances_power_state_check`);
    await db.query(`ALTER TABLE vps_instances ALTER COLUMN power_state TYPE varchar(16)`);
    await db.query(`ALTER TABLE vps_instances ADD CONSTRAINT vps_instances_power_state_check CHECK (power_state IN (${NEW_STATES}))`);
    await db.query(`
      CREATE TABLE vps_provisioning (
        service_id uuid PRIMARY KEY REFERENCES services(id) ON DELETE CASCADE,
        spec jsonb NOT NULL,
        status varchar(10) NOT NULL DEFAULT 'running'
          CONSTRAINT vps_provisioning_status_check CHECK (status IN ('running', 'succeeded', 'failed')),
        attempts integer NOT NULL DEFAULT 0,
        lease_until timestamptz,
        last_error varchar(500),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        finished_at timestamptz
      )`);
    await db.query(`CREATE INDEX vps_provisioning_running_idx ON vps_provisioning (updated_at) WHERE status = 'running'`);
    await db.query(`
      CREATE TABLE hypervisor_orphans (
        hypervisor varchar(300) NOT NULL,
        kind varchar(10) NOT NULL CONSTRAINT hypervisor_orphans_kind_check CHECK (kind IN ('domain', 'volume')),
        name varchar(300) NOT NULL,
        first_seen_at timestamptz NOT NULL DEFAULT now(),
        last_seen_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (hypervisor, kind, name)
      )`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE hypervisor_orphans`);
    await db.query(`DROP TABLE vps_provisioning`);
    await db.query(`UPDATE vps_instances SET power_state = 'stopped' WHERE power_state IN ('provisioning', 'error')`);
    await db.query(`ALTER TABLE vps_instances DROP CONSTRAINT vps_instances_power_state_check`);
    await db.query(`ALTER TABLE vps_instances ALTER COLUMN power_state TYPE varchar(10)`);
    await db.query(`ALTER TABLE vps_instances ADD CONSTRAINT vps_instances_power_state_check CHECK (power_state IN (${OLD_STATES}))`);
  }
}
