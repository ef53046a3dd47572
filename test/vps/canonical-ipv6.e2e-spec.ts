import { randomUUID } from 'node:crypto';
import { sqlRows, TransactionRunner } from '@app/core';
import { CanonicalIpv61764000004000 } from '../../libs/vps/src/migrations/1764000004000-canonical-ipv6';
import { NetworkAllocator } from '../../libs/vps/src/instances/network/network-allocator';
import { createAccount } from '../factories/accounts';
import { createService } from '../factories/services';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * IPv6 addresses in one text form (RFC 5952) wherever they are leased, stored and shown: the
 * pool's gateway and every new lease, and, by a migration, what was written before in the longer
 * form (`2001:db8:77:0::1a` is `2001:db8:77::1a`).
 */
describe('IPv6 addresses in canonical form', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({
      NETWORK_MODE: 'bridge',
      NETWORK_IPV4_POOL: '192.0.2.0/29',
      NETWORK_IPV6_POOL: '2001:0DB8:0077:0000::/64',
      NETWORK_DNS: '2001:db8:0:0::53',
    });
  });
  afterAll(() => t.close());

  it('leases and shows the address, the gateway and the resolver in their short form', async () => {
    const id = randomUUID();
    const lease = await t.app.get(TransactionRunner).run((m) => t.app.get(NetworkAllocator).allocate(m, id, 'eu-central'));
    await t.app.get(TransactionRunner).run((m) => t.app.get(NetworkAllocator).release(m, id));
    expect(lease).toMatchObject({ ipv6: { prefix: 64, gateway: '2001:db8:77::1' }, dns: ['2001:db8::53'] });
    expect(lease.mode === 'bridge' && lease.ipv6?.address).toMatch(/^2001:db8:77::[1-9a-f][0-9a-f]{0,3}$/);
  });

  it('rewrites the leases and the VPSes written in the long form', async () => {
    const owner = await createAccount(t);
    const vps = (await createService(t, owner.id)).id;
    const network = { mode: 'bridge', ipv6: { address: '2001:db8:77:0::1a', prefix: 64, gateway: '2001:db8:77:0::1' } };
    const runner = t.db.createQueryRunner();
    await runner.connect();
    await runner.startTransaction();
    try {
      await runner.query(`INSERT INTO network_leases (scope, value, service_id) VALUES ('ipv6', '2001:db8:77:0::1a', $1)`, [vps]);
      await runner.query(`UPDATE vps_instances SET ipv6 = '2001:db8:77:0::1a', network = $2 WHERE service_id = $1`, [
        vps,
        JSON.stringify(network),
      ]);
      await new CanonicalIpv61764000004000().up(runner);
      const leases = await sqlRows<{ value: string }>(
        runner.manager,
        `SELECT value FROM network_leases WHERE service_id = $1 AND scope = 'ipv6'`,
        [vps],
      );
      expect(leases.map((l) => l.value)).toContain('2001:db8:77::1a');
      expect(leases.map((l) => l.value)).not.toContain('2001:db8:77:0::1a');
      const [row] = await sqlRows<{ ipv6: string; network: typeof network }>(
        runner.manager,
        `SELECT ipv6, network FROM vps_instances WHERE service_id = $1`,
        [vps],
      );
      expect(row).toEqual({
        ipv6: '2001:db8:77::1a',
        network: { ...network, ipv6: { address: '2001:db8:77::1a', prefix: 64, gateway: '2001:db8:77::1' } },
      });
    } finally {
      await runner.rollbackTransaction();
      await runner.release();
    }
  });
});
