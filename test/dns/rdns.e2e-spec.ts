import request from 'supertest';
import { createAccount, TestAccount } from '../factories/accounts';
import { createService } from '../factories/services';
import { dig, digPtr, PowerDns, powerDnsAvailable, powerDnsEnv, startPowerDns } from '../support/powerdns';
import { runCliIn } from '../support/run-cli-in-app';
import { startTestApp, TestApp } from '../support/test-app';
import { waitFor } from '../support/wait-for';

const run = powerDnsAvailable() ? describe : describe.skip;

/**
 * Reverse DNS of VPS addresses (issue 54) into a private PowerDNS: the pools' reverse zones (a /24,
 * an RFC 2317 /26, the IPv6 /64's nibble zone), a PTR set and reset, what a terminated VPS leaves,
 * ownership, and PowerDNS not answering. The VPSes are the compute simulator's, given pool addresses
 * as bridge networking would (a real guest's address is covered by vps-bridge-libvirt.e2e-spec.ts).
 */
run('Reverse DNS on PowerDNS', () => {
  let pdns: PowerDns;
  let t: TestApp;
  let owner: TestAccount;
  let stranger: TestAccount;

  beforeAll(async () => {
    pdns = await startPowerDns();
    t = await startTestApp({
      ...powerDnsEnv(pdns),
      DNS_TIMEOUT_MS: '1000',
      DNS_DEFAULT_PTR_DOMAIN: 'vps.example.net',
      NETWORK_IPV4_POOL: '203.0.113.0/24,198.51.100.64/26',
      NETWORK_IPV6_POOL: '2001:db8:10:20::/64',
    });
    owner = await createAccount(t);
    stranger = await createAccount(t);
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await pdns?.stop();
  });

  const bridged = async (name: string, ipv4: string, ipv6: string | null, who: TestAccount = owner) => {
    // The address is written, not leased: a VPS an earlier file of this worker's database left on it
    // would have its PTR synced to the address too. The address is this test's alone.
    await t.db.query(`UPDATE vps_instances SET ipv4 = NULL WHERE ipv4 = $1`, [ipv4]);
    if (ipv6) await t.db.query(`UPDATE vps_instances SET ipv6 = NULL WHERE ipv6 = $1`, [ipv6]);
    await t.db.query(`DELETE FROM vps_address_ptrs WHERE address = $1 OR address = $2`, [ipv4, ipv6 ?? ipv4]);
    const vps = await createService(t, who.id, { name });
    await t.db.query(`UPDATE vps_instances SET ipv4 = $2, ipv6 = $3, network = '{"mode": "bridge"}' WHERE service_id = $1`, [
      vps.id,
      ipv4,
      ipv6,
    ]);
    return vps.id;
  };
  const setPtr = (id: string, body: object, who: TestAccount = owner, bearer = who.bearer) =>
    request(t.http).put(`/api/services/${id}/instance/rdns`).set('Authorization', bearer).send(body);
  const addresses = async (id: string) => (await t.get(`/api/services/${id}`, owner.bearer).expect(200)).body.instance.addresses;
  const syncsDone = () =>
    waitFor(
      async () =>
        (
          await t.db.query(
            `SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'vps-ptr-sync' AND state IN ('created', 'retry', 'active')`,
          )
        )[0].n,
      (n: number) => n === 0,
      60_000,
    );

  it('makes the reverse zones of the pools in PowerDNS', async () => {
    await waitFor(
      async () => (await dig(pdns.dnsPort, '113.0.203.in-addr.arpa', 'SOA')).length,
      (n) => n === 1,
      20_000,
    );
    expect(await dig(pdns.dnsPort, '64/26.100.51.198.in-addr.arpa', 'SOA')).toHaveLength(1);
    expect(await dig(pdns.dnsPort, '0.2.0.0.0.1.0.0.8.b.d.0.1.0.0.2.ip6.arpa', 'SOA')).toHaveLength(1);
  });

  it('shows the default PTR, sets one that dig -x answers, and resets it', async () => {
    const id = await bridged('Web 01', '203.0.113.25', '2001:db8:10:20::25');
    expect(await addresses(id)).toEqual([
      { ip: '203.0.113.25', ptr: 'web-01.vps.example.net' },
      { ip: '2001:db8:10:20::25', ptr: 'web-01.vps.example.net' },
    ]);
    expect((await setPtr(id, { ip: '203.0.113.25', ptr: 'Mail.Example.COM.' }).expect(200)).body).toEqual({
      ip: '203.0.113.25',
      ptr: 'mail.example.com',
    });
    expect(await digPtr(pdns.dnsPort, '203.0.113.25')).toEqual(['mail.example.com.']);
    await setPtr(id, { ip: '2001:DB8:10:20:0:0:0:25', ptr: 'mail6.example.com' }).expect(200);
    expect(await digPtr(pdns.dnsPort, '2001:db8:10:20::25')).toEqual(['mail6.example.com.']);
    expect(await addresses(id)).toEqual([
      { ip: '203.0.113.25', ptr: 'mail.example.com' },
      { ip: '2001:db8:10:20::25', ptr: 'mail6.example.com' },
    ]);
    expect((await setPtr(id, { ip: '203.0.113.25', ptr: null }).expect(200)).body.ptr).toBe('web-01.vps.example.net');
    expect(await digPtr(pdns.dnsPort, '203.0.113.25')).toEqual(['web-01.vps.example.net.']);
  });

  it('writes a classless (RFC 2317) pool address in its /26 zone', async () => {
    const id = await bridged('mx', '198.51.100.70', null);
    await setPtr(id, { ip: '198.51.100.70', ptr: 'mx.example.org' }).expect(200);
    expect(await dig(pdns.dnsPort, '70.64/26.100.51.198.in-addr.arpa', 'PTR')).toEqual(['mx.example.org.']);
  });

  it('refuses what is not its own or not a host name', async () => {
    const id = await bridged('checks', '203.0.113.26', null);
    const other = await bridged('theirs', '203.0.113.27', null, stranger);
    const wrongIp = await setPtr(id, { ip: '203.0.113.27', ptr: 'x.example.com' }).expect(400);
    expect(wrongIp.body.errors[0].field).toBe('ip');
    for (const ptr of ['not a name', '203.0.113.1', 'localhost'])
      expect((await setPtr(id, { ip: '203.0.113.26', ptr }).expect(400)).body.errors[0].field).toBe('ptr');
    await setPtr(other, { ip: '203.0.113.27', ptr: 'stolen.example.com' }).expect(404);
    await request(t.http).put(`/api/services/${id}/instance/rdns`).send({ ip: '203.0.113.26', ptr: 'x.example.com' }).expect(401);
    const reader = await createAccount(t, { scopes: ['read'] });
    const readOnly = await bridged('read', '203.0.113.28', null, reader);
    expect((await setPtr(readOnly, { ip: '203.0.113.28', ptr: 'x.example.com' }, reader, reader.keyBearer).expect(403)).body.code).toBe(
      'insufficient_scope',
    );
    const userMode = await createService(t, owner.id, { name: 'user-mode' });
    await t.db.query(`UPDATE vps_instances SET ipv4 = NULL, ipv6 = NULL, network = '{"mode": "user"}' WHERE service_id = $1`, [
      userMode.id,
    ]);
    expect(await addresses(userMode.id)).toEqual([]);
    expect((await setPtr(userMode.id, { ip: '203.0.113.99', ptr: 'x.example.com' }).expect(409)).body.code).toBe(
      'unsupported_network_mode',
    );
    expect(await digPtr(pdns.dnsPort, '203.0.113.27')).toEqual([]);
  });

  it("gives a terminated VPS's addresses back without its PTRs", async () => {
    const id = await bridged('leaving', '203.0.113.30', null);
    await setPtr(id, { ip: '203.0.113.30', ptr: 'shop.example.com' }).expect(200);
    expect((await runCliIn(t.app, ['service:set-status', '--id', id, '--status', 'terminated'])).code).toBe(0);
    await syncsDone();
    expect(await digPtr(pdns.dnsPort, '203.0.113.30')).toEqual([]);
    expect(await t.db.query(`SELECT * FROM vps_address_ptrs WHERE service_id = $1`, [id])).toEqual([]);
    const next = await bridged('next-one', '203.0.113.30', null, stranger);
    expect((await t.get(`/api/services/${next}`, stranger.bearer).expect(200)).body.instance.addresses).toEqual([
      { ip: '203.0.113.30', ptr: 'next-one.vps.example.net' },
    ]);
  });

  it('answers 503 dns_unavailable while PowerDNS does not answer, and keeps the PTR it had', async () => {
    const id = await bridged('outage', '203.0.113.40', null);
    await setPtr(id, { ip: '203.0.113.40', ptr: 'before.example.com' }).expect(200);
    pdns.pause();
    try {
      expect((await setPtr(id, { ip: '203.0.113.40', ptr: 'after.example.com' }).expect(503)).body.code).toBe('dns_unavailable');
    } finally {
      pdns.resume();
    }
    await syncsDone();
    expect(await digPtr(pdns.dnsPort, '203.0.113.40')).toEqual(['before.example.com.']);
    expect(await addresses(id)).toEqual([{ ip: '203.0.113.40', ptr: 'before.example.com' }]);
  });

  it('records the change in the activity log', async () => {
    const id = await bridged('logged', '203.0.113.50', null);
    await setPtr(id, { ip: '203.0.113.50', ptr: 'logged.example.com' }).expect(200);
    const events = (await t.get(`/api/events?entityId=${id}&pageSize=10`, owner.bearer).expect(200)).body.data;
    expect(events.find((e: { action: string }) => e.action === 'instance.rdns_update').details).toEqual({
      ip: '203.0.113.50',
      ptr: 'logged.example.com',
    });
  });
});
