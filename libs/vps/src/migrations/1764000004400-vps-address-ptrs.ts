import { MigrationInterface, QueryRunner } from 'typeorm';

/** The PTRs customers set on their VPSes' addresses (issue 54); an address without one has the default. */
export class VpsAddressPtrs1764000004400 implements MigrationInterface {
  name = 'VpsAddressPtrs1764000004400';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE vps_address_ptrs (
        address varchar(45) PRIMARY KEY,
        service_id uuid NOT NULL REFERENCES services(id) ON DELETE CASCADE,
        ptr varchar(253) NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await db.query(`CREATE INDEX vps_address_ptrs_service_idx ON vps_address_ptrs (service_id)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE vps_address_ptrs`);
  }
}
