import { MigrationInterface, QueryRunner } from 'typeorm';
import { VpsMoves1764000003500 } from './1764000003500-vps-moves';
import { VpsEvacuations1764000003550 } from './1764000003550-vps-evacuations';

/**
 * One record for every move of a VPS to another host (issue 51): `service:move` and
 * `host:drain` copy the disk (`copy`), `host:evacuate` makes the machine again from its latest
 * backup (`backup`) or its image (`image`). Each is worked by the `vps-relocation` job under its
 * lease, so one a dead process left is resumed or, once its attempts are spent, rolled back.
 * The rows of vps_moves and vps_evacuations are carried over: an evacuation that had failed stayed
 * on its host (`rolled_back`), a running one gets no lease and is taken up by the job's resume scan.
 */
export class VpsRelocations1764000003900 implements MigrationInterface {
  name = 'VpsRelocations1764000003900';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE vps_relocations (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        service_id uuid NOT NULL REFERENCES services(id) ON DELETE CASCADE,
        source varchar(8) NOT NULL CONSTRAINT vps_relocations_source_check CHECK (source IN ('copy', 'backup', 'image')),
        from_host_id uuid REFERENCES hosts(id) ON DELETE SET NULL,
        to_host_id uuid REFERENCES hosts(id) ON DELETE SET NULL,
        from_host varchar(64) NOT NULL,
        to_host varchar(64) NOT NULL,
        -- Running when it began: a copy stops it first and starts it again, a recreated machine is started.
        was_running boolean NOT NULL DEFAULT false,
        -- What the VPS takes of a host: held on the new one until the relocation settles or is rolled back.
        vcpus integer NOT NULL,
        memory_mb integer NOT NULL,
        disk_gb integer NOT NULL,
        -- The forwarded SSH port leased on the new host (user networking); null without one.
        to_ssh_port integer,
        -- A recreated machine: the backup it is made from, and what was decided (network, power state, disk) so a resumed try makes the same.
        backup_id uuid,
        plan jsonb,
        status varchar(12) NOT NULL DEFAULT 'running'
          CONSTRAINT vps_relocations_status_check CHECK (status IN ('running', 'succeeded', 'rolled_back', 'failed')),
        attempts integer NOT NULL DEFAULT 0,
        lease_until timestamptz,
        error_code varchar(64),
        last_error varchar(2000),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        finished_at timestamptz,
        -- A recreated machine's stale domain and disks removed from the old host once it answered again.
        stale_removed_at timestamptz
      )`);
    await db.query(`CREATE UNIQUE INDEX vps_relocations_one_running_idx ON vps_relocations (service_id) WHERE status = 'running'`);
    await db.query(`CREATE INDEX vps_relocations_from_idx ON vps_relocations (from_host_id, created_at)`);
    await db.query(
      `CREATE INDEX vps_relocations_stale_idx ON vps_relocations (from_host_id) WHERE stale_removed_at IS NULL AND source <> 'copy' AND status = 'succeeded'`,
    );
    await db.query(`
      INSERT INTO vps_relocations (id, service_id, source, from_host_id, to_host_id, from_host, to_host, was_running, vcpus, memory_mb, disk_gb,
                                   to_ssh_port, status, attempts, lease_until, last_error, created_at, updated_at, finished_at)
      SELECT id, service_id, 'copy', from_host_id, to_host_id, from_host, to_host, was_running, vcpus, memory_mb, disk_gb,
             to_ssh_port, status, attempts, lease_until, last_error, created_at, updated_at, finished_at
        FROM vps_moves`);
    await db.query(`
      INSERT INTO vps_relocations (id, service_id, source, from_host_id, to_host_id, from_host, to_host, was_running, vcpus, memory_mb, disk_gb,
                                   to_ssh_port, backup_id, plan, status, attempts, error_code, last_error, created_at, updated_at, finished_at,
                                   stale_removed_at)
      SELECT e.id, e.service_id,
             CASE WHEN e.status = 'restored' OR e.backup_id IS NOT NULL THEN 'backup' ELSE 'image' END,
             e.from_host_id, e.to_host_id, f.name, coalesce(t.name, ''), coalesce(e.plan ->> 'powerState' = 'running', false),
             coalesce(a.vcpus, 0), coalesce(a.memory_mb, 0), coalesce(a.disk_gb, 0),
             CASE WHEN e.plan -> 'network' ->> 'mode' = 'user' THEN (e.plan -> 'network' ->> 'sshPort')::int END,
             e.backup_id, e.plan,
             CASE e.status WHEN 'failed' THEN 'rolled_back' WHEN 'running' THEN 'running' ELSE 'succeeded' END,
             CASE WHEN e.status = 'running' THEN 0 ELSE 1 END, e.error_code, left(e.error_message, 2000),
             e.started_at, coalesce(e.finished_at, e.started_at), e.finished_at, e.stale_removed_at
        FROM vps_evacuations e JOIN hosts f ON f.id = e.from_host_id LEFT JOIN hosts t ON t.id = e.to_host_id
        LEFT JOIN host_allocations a ON a.service_id = e.service_id`);
    await db.query(`DROP TABLE vps_moves`);
    await db.query(`DROP TABLE vps_evacuations`);
  }

  async down(db: QueryRunner): Promise<void> {
    await new VpsMoves1764000003500().up(db);
    await new VpsEvacuations1764000003550().up(db);
    await db.query(`
      INSERT INTO vps_moves (id, service_id, from_host_id, to_host_id, from_host, to_host, was_running, vcpus, memory_mb, disk_gb,
                             to_ssh_port, status, attempts, lease_until, last_error, created_at, updated_at, finished_at)
      SELECT id, service_id, from_host_id, to_host_id, from_host, to_host, was_running, vcpus, memory_mb, disk_gb,
             to_ssh_port, status, attempts, lease_until, left(last_error, 500), created_at, updated_at, finished_at
        FROM vps_relocations WHERE source = 'copy'`);
    await db.query(`
      INSERT INTO vps_evacuations (id, service_id, from_host_id, to_host_id, status, backup_id, plan, error_code, error_message,
                                   started_at, finished_at, stale_removed_at)
      SELECT DISTINCT ON (service_id, from_host_id) id, service_id, from_host_id, to_host_id,
             CASE status WHEN 'succeeded' THEN CASE source WHEN 'backup' THEN 'restored' ELSE 'rebuilt' END
                         WHEN 'running' THEN 'running' ELSE 'failed' END,
             backup_id, plan, error_code, last_error, created_at, finished_at, stale_removed_at
        FROM vps_relocations WHERE source <> 'copy' AND from_host_id IS NOT NULL ORDER BY service_id, from_host_id, created_at DESC`);
    await db.query(`DROP TABLE vps_relocations`);
  }
}
