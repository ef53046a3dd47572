import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Many hypervisors per region. `hosts` holds each with its capacity and what is taken of
 * it; the CHECKs are the last word on overcommit (placement's conditional UPDATE takes capacity
 * in the transaction that records the VPS). `host_allocations` is what each VPS took, given back
 * once (its row deleted) when the VPS is terminated. A VPS without a host (host_id NULL) runs on
 * its region's hypervisor of LIBVIRT_REGION_URIS / LIBVIRT_URI, as before hosts.
 */
export class Hosts1764000003400 implements MigrationInterface {
  name = 'Hosts1764000003400';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE hosts (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        name varchar(64) NOT NULL CONSTRAINT hosts_name_key UNIQUE,
        region varchar(32) NOT NULL,
        uri varchar(300) NOT NULL,
        vcpus integer NOT NULL CONSTRAINT hosts_vcpus_check CHECK (vcpus > 0),
        memory_mb integer NOT NULL CONSTRAINT hosts_memory_check CHECK (memory_mb > 0),
        disk_gb integer NOT NULL CONSTRAINT hosts_disk_check CHECK (disk_gb > 0),
        cpu_overcommit numeric(5,2) NOT NULL DEFAULT 1 CONSTRAINT hosts_overcommit_check CHECK (cpu_overcommit >= 1 AND cpu_overcommit <= 64),
        vnc_listen varchar(64),
        state varchar(12) NOT NULL DEFAULT 'enabled'
          CONSTRAINT hosts_state_check CHECK (state IN ('enabled', 'disabled', 'maintenance', 'unreachable')),
        used_vcpus integer NOT NULL DEFAULT 0,
        used_memory_mb integer NOT NULL DEFAULT 0,
        used_disk_gb integer NOT NULL DEFAULT 0,
        -- How full it is (its fullest resource): placement reads the emptiest or fullest few by the index below.
        load float8 GENERATED ALWAYS AS (greatest(
          used_vcpus::float8 / floor(vcpus * cpu_overcommit)::float8, used_memory_mb::float8 / memory_mb, used_disk_gb::float8 / disk_gb)) STORED,
        last_seen_at timestamptz,
        silent_since timestamptz,
        state_before_unreachable varchar(12),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT hosts_vcpus_capacity CHECK (used_vcpus >= 0 AND used_vcpus <= floor(vcpus * cpu_overcommit)),
        CONSTRAINT hosts_memory_capacity CHECK (used_memory_mb >= 0 AND used_memory_mb <= memory_mb),
        CONSTRAINT hosts_disk_capacity CHECK (used_disk_gb >= 0 AND used_disk_gb <= disk_gb)
      )`);
    await db.query(`CREATE INDEX hosts_placement_idx ON hosts (region, load, name) WHERE state = 'enabled'`);
    await db.query(`
      CREATE TABLE host_allocations (
        service_id uuid PRIMARY KEY REFERENCES services(id) ON DELETE CASCADE,
        host_id uuid NOT NULL REFERENCES hosts(id),
        vcpus integer NOT NULL,
        memory_mb integer NOT NULL,
        disk_gb integer NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await db.query(`CREATE INDEX host_allocations_host_idx ON host_allocations (host_id)`);
    await db.query(`ALTER TABLE vps_instances ADD COLUMN host_id uuid REFERENCES hosts(id)`);
    await db.query(`CREATE INDEX vps_instances_host_idx ON vps_instances (host_id) WHERE host_id IS NOT NULL`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE vps_instances DROP COLUMN host_id`);
    await db.query(`DROP TABLE host_allocations`);
    await db.query(`DROP TABLE hosts`);
  }
}
