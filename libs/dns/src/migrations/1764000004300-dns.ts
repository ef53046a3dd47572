import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * DNS (issue 54): customers' zones and records as the API keeps them (PowerDNS serves a copy,
 * written through its HTTP API); a zone of no account is the provider's (the reverse zones of the
 * address pools, whose PTR records are written from the VPS area's PTRs and never kept here).
 */
export class Dns1764000004300 implements MigrationInterface {
  name = 'Dns1764000004300';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE dns_zones (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        account_id uuid REFERENCES accounts(id) ON DELETE CASCADE,
        name varchar(253) NOT NULL,
        serial bigint NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await db.query(`CREATE UNIQUE INDEX dns_zones_name_idx ON dns_zones (name)`);
    await db.query(`CREATE INDEX dns_zones_account_idx ON dns_zones (account_id, created_at DESC, id DESC)`);
    await db.query(`
      CREATE TABLE dns_records (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        zone_id uuid NOT NULL REFERENCES dns_zones(id) ON DELETE CASCADE,
        name varchar(253) NOT NULL,
        type varchar(8) NOT NULL CHECK (type IN ('A', 'AAAA', 'CNAME', 'MX', 'TXT', 'SRV', 'CAA', 'NS')),
        ttl integer NOT NULL,
        value text NOT NULL,
        priority integer,
        weight integer,
        port integer,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp()
      )`);
    await db.query(`CREATE INDEX dns_records_zone_idx ON dns_records (zone_id, created_at, id)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE dns_records`);
    await db.query(`DROP TABLE dns_zones`);
  }
}
