import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Operating system images; each VPS's image, root disk size, SSH address and network; addresses and
 * forwarded ports leased to VPSes, unique per scope by the primary key (so two replicas never
 * hand out the same one); and the rebuild action with what it was asked for.
 */
export class ImagesDisksNetworks1764000002200 implements MigrationInterface {
  name = 'ImagesDisksNetworks1764000002200';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE images (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        slug varchar(64) NOT NULL,
        name varchar(100) NOT NULL,
        os_family varchar(32) NOT NULL,
        os_version varchar(32) NOT NULL,
        min_disk_gb integer NOT NULL CONSTRAINT images_min_disk_check CHECK (min_disk_gb >= 1),
        format varchar(8) NOT NULL CONSTRAINT images_format_check CHECK (format IN ('qcow2', 'raw')),
        size_bytes bigint NOT NULL,
        status varchar(16) NOT NULL CONSTRAINT images_status_check CHECK (status IN ('uploading', 'available', 'deleted')),
        created_at timestamptz NOT NULL DEFAULT now(),
        deleted_at timestamptz
      )`);
    // A slug names one live image; a removed image's slug may be used again.
    await db.query(`CREATE UNIQUE INDEX images_slug_key ON images (slug) WHERE status <> 'deleted'`);
    await db.query(`CREATE INDEX images_list_idx ON images (created_at DESC, id DESC) WHERE status <> 'deleted'`);

    await db.query(`
      ALTER TABLE vps_instances
        ADD COLUMN image_id uuid REFERENCES images(id),
        ADD COLUMN disk_gb integer,
        ADD COLUMN ssh_host varchar(45),
        ADD COLUMN ssh_port integer,
        ADD COLUMN network jsonb`);
    await db.query(`CREATE INDEX vps_instances_image_idx ON vps_instances (image_id) WHERE image_id IS NOT NULL`);
    await db.query(`
      UPDATE vps_instances i SET disk_gb = (p.specs->>'diskGb')::int
        FROM services s JOIN products p ON p.id = s.product_id
       WHERE s.id = i.service_id`);

    // scope: 'ipv4', 'ipv6' or 'ssh-port:<region>'; no foreign key: leases are taken before the service row exists.
    await db.query(`
      CREATE TABLE network_leases (
        scope varchar(64) NOT NULL,
        value varchar(45) NOT NULL,
        service_id uuid NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (scope, value)
      )`);
    await db.query(`CREATE INDEX network_leases_service_idx ON network_leases (service_id)`);

    await db.query(`ALTER TABLE instance_actions DROP CONSTRAINT instance_actions_type_check`);
    await db.query(
      `ALTER TABLE instance_actions ADD CONSTRAINT instance_actions_type_check CHECK (type IN ('start', 'stop', 'reboot', 'rebuild'))`,
    );
    await db.query(`ALTER TABLE instance_actions ADD COLUMN params jsonb`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DELETE FROM instance_actions WHERE type = 'rebuild'`);
    await db.query(`ALTER TABLE instance_actions DROP COLUMN params`);
    await db.query(`ALTER TABLE instance_actions DROP CONSTRAINT instance_actions_type_check`);
    await db.query(`ALTER TABLE instance_actions ADD CONSTRAINT instance_actions_type_check CHECK (type IN ('start', 'stop', 'reboot'))`);
    await db.query(`DROP TABLE network_leases`);
    await db.query(
      `ALTER TABLE vps_instances DROP COLUMN image_id, DROP COLUMN disk_gb, DROP COLUMN ssh_host, DROP COLUMN ssh_port, DROP COLUMN network`,
    );
    await db.query(`DROP TABLE images`);
  }
}
