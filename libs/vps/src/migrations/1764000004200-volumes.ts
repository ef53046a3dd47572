import { MigrationInterface, QueryRunner } from 'typeorm';

const PRODUCT_ID = 'b3f1a6d2-5c4e-4f0a-9d7b-2e8c1a9f6d30';
const TYPES_BEFORE = `'vps', 'object_storage'`;
const TYPES = `'vps', 'object_storage', 'volume'`;

/**
 * Volumes (issue 53): a third kind of service, priced per GiB (the product's price is one GiB's,
 * a volume's is that times its size), its block device, and the attach, detach and resize actions.
 */
export class Volumes1764000004200 implements MigrationInterface {
  name = 'Volumes1764000004200';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE products DROP CONSTRAINT products_type_check`);
    await db.query(`ALTER TABLE products ADD CONSTRAINT products_type_check CHECK (type IN (${TYPES}))`);
    await db.query(`ALTER TABLE services DROP CONSTRAINT services_type_check`);
    await db.query(`ALTER TABLE services ADD CONSTRAINT services_type_check CHECK (type IN (${TYPES}))`);
    await db.query(
      `INSERT INTO products (id, slug, name, type, description, specs, available, position)
       VALUES ($1, 'volume', 'Volume', 'volume', $2, $3::jsonb, true, 200)`,
      [
        PRODUCT_ID,
        'Block storage on Ceph that outlives a VPS and moves between them; priced per GiB.',
        JSON.stringify({ pricePerGb: true, minSizeGb: 10, maxSizeGb: 10240 }),
      ],
    );
    await db.query(
      `INSERT INTO product_prices (product_id, billing_cycle, currency, price) VALUES ($1, 'hourly', 'EUR', '0.0001'), ($1, 'monthly', 'EUR', '0.0440')`,
      [PRODUCT_ID],
    );
    await db.query(`
      CREATE TABLE volumes (
        service_id uuid PRIMARY KEY REFERENCES services(id) ON DELETE CASCADE,
        region varchar(32) NOT NULL,
        size_gb integer NOT NULL CHECK (size_gb > 0),
        state varchar(16) NOT NULL DEFAULT 'detached'
          CHECK (state IN ('detached', 'attaching', 'attached', 'detaching', 'resizing')),
        attached_to uuid REFERENCES services(id) ON DELETE SET NULL,
        purge_after timestamptz,
        purged_at timestamptz,
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await db.query(`CREATE INDEX volumes_attached_to_idx ON volumes (attached_to) WHERE attached_to IS NOT NULL`);
    await db.query(`
      CREATE TABLE volume_actions (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        service_id uuid NOT NULL REFERENCES services(id) ON DELETE CASCADE,
        type varchar(8) NOT NULL CHECK (type IN ('attach', 'detach', 'resize')),
        status varchar(10) NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'succeeded', 'failed')),
        target_service_id uuid,
        size_gb integer,
        error_code varchar(64),
        error_message text,
        started_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        finished_at timestamptz
      )`);
    await db.query(`CREATE INDEX volume_actions_service_idx ON volume_actions (service_id, started_at DESC, id DESC)`);
    await db.query(`CREATE UNIQUE INDEX volume_actions_one_running_idx ON volume_actions (service_id) WHERE status = 'running'`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE volume_actions`);
    await db.query(`DROP TABLE volumes`);
    await db.query(`DELETE FROM services WHERE type = 'volume'`);
    await db.query(`DELETE FROM products WHERE type = 'volume'`);
    await db.query(`ALTER TABLE services DROP CONSTRAINT services_type_check`);
    await db.query(`ALTER TABLE services ADD CONSTRAINT services_type_check CHECK (type IN (${TYPES_BEFORE}))`);
    await db.query(`ALTER TABLE products DROP CONSTRAINT products_type_check`);
    await db.query(`ALTER TABLE products ADD CONSTRAINT products_type_check CHECK (type IN (${TYPES_BEFORE}))`);
  }
}
