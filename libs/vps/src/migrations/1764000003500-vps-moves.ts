import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The durable record of each move of a VPS between hosts (`service:move`, `host:drain`),
 * written in the transaction that holds the room on the new host and worked by the `vps-move`
 * job under its lease, so a move a dead process left is resumed or, once its attempts are spent,
 * rolled back. One running move per VPS. The host names stay readable after a host is removed.
 */
export class VpsMoves1764000003500 implements MigrationInterface {
  name = 'VpsMoves1764000003500';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE vps_moves (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        service_id uuid NOT NULL REFERENCES services(id) ON DELETE CASCADE,
        from_host_id uuid REFERENCES hosts(id) ON DELETE SET NULL,
        to_host_id uuid REFERENCES hosts(id) ON DELETE SET NULL,
        from_host varchar(64) NOT NULL,
        to_host varchar(64) NOT NULL,
        -- Running when the move began: stopped first, started again on the new host, the customer told.
        was_running boolean NOT NULL DEFAULT false,
        -- What the VPS takes of a host: held on the new one until the move settles or is rolled back.
        vcpus integer NOT NULL,
        memory_mb integer NOT NULL,
        disk_gb integer NOT NULL,
        -- The forwarded SSH port leased on the new host (user networking); null without one.
        to_ssh_port integer,
        status varchar(12) NOT NULL DEFAULT 'running'
          CONSTRAINT vps_moves_status_check CHECK (status IN ('running', 'succeeded', 'rolled_back', 'failed')),
        attempts integer NOT NULL DEFAULT 0,
        lease_until timestamptz,
        last_error varchar(500),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        finished_at timestamptz
      )`);
    await db.query(`CREATE UNIQUE INDEX vps_moves_one_running_idx ON vps_moves (service_id) WHERE status = 'running'`);
    await db.query(`CREATE INDEX vps_moves_from_idx ON vps_moves (from_host_id, created_at)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE vps_moves`);
  }
}
