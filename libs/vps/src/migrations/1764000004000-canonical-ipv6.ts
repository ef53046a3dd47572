import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * IPv6 addresses in their one text form (RFC 5952; `host()` of an inet writes it): the leases, so
 * a new lease written so cannot take an address held under the old form, and what a VPS shows.
 */
export class CanonicalIpv61764000004000 implements MigrationInterface {
  name = 'CanonicalIpv61764000004000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`UPDATE network_leases SET value = host(value::inet) WHERE scope = 'ipv6' AND value <> host(value::inet)`);
    await db.query(`UPDATE vps_instances SET ipv6 = host(ipv6::inet) WHERE ipv6 <> host(ipv6::inet)`);
    await db.query(
      `UPDATE vps_instances
          SET network = jsonb_set(
                jsonb_set(network, '{ipv6,address}', to_jsonb(host((network #>> '{ipv6,address}')::inet))),
                '{ipv6,gateway}', to_jsonb(host((network #>> '{ipv6,gateway}')::inet)))
        WHERE jsonb_typeof(network -> 'ipv6') = 'object'`,
    );
  }

  /** The canonical form is an address the older code reads as well. */
  async down(): Promise<void> {}
}
