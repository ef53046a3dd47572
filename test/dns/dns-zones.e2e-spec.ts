import request from 'supertest';
import { createAccount, TestAccount } from '../factories/accounts';
import { dig, PowerDns, powerDnsAvailable, powerDnsEnv, startPowerDns } from '../support/powerdns';
import { startTestApp, TestApp } from '../support/test-app';
import { waitFor } from '../support/wait-for';
import { txtFromRdata } from '../../libs/dns/src/records/record-rules';

const run = powerDnsAvailable() ? describe : describe.skip;

/**
 * DNS zones and records (issue 54) through the API into a private PowerDNS, read back with dig:
 * exactly the values written, nothing half-written when a record or the server fails, ownership,
 * limits, the zone file round trip, and the activity log.
 */
run('DNS zones and records on PowerDNS', () => {
  let pdns: PowerDns;
  let t: TestApp;
  let owner: TestAccount;
  let stranger: TestAccount;

  beforeAll(async () => {
    pdns = await startPowerDns();
    t = await startTestApp({
      ...powerDnsEnv(pdns),
      DNS_NAMESERVERS: 'ns1.example.net,ns2.example.net',
      DNS_RESERVED_ZONES: 'example.net',
      DNS_TIMEOUT_MS: '1000',
      DNS_ZONES_PER_ACCOUNT: '12',
      DNS_RECORDS_PER_ZONE: '12',
    });
    owner = await createAccount(t);
    stranger = await createAccount(t);
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await pdns?.stop();
  });

  const call = (method: 'post' | 'patch' | 'delete' | 'put', path: string, who: TestAccount = owner, bearer = who.bearer) =>
    request(t.http)[method](path).set('Authorization', bearer);
  const createZone = (name: string, who: TestAccount = owner) => call('post', '/api/dns/zones', who).send({ name });
  const addRecord = (zoneId: string, body: object, who: TestAccount = owner) =>
    call('post', `/api/dns/zones/${zoneId}/records`, who).send(body);
  const records = async (zoneId: string) =>
    (await t.get(`/api/dns/zones/${zoneId}/records?pageSize=100`, owner.bearer).expect(200)).body.data;
  const serialServed = async (zone: string) => Number((await dig(pdns.dnsPort, zone, 'SOA'))[0]?.split(' ')[2]);

  it('creates a zone with the nameservers and a serial PowerDNS serves', async () => {
    const res = await createZone('Shop.Example.COM.').expect(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      name: 'shop.example.com',
      nameservers: ['ns1.example.net', 'ns2.example.net'],
      serial: expect.any(Number),
      createdAt: expect.any(String),
    });
    expect((await dig(pdns.dnsPort, 'shop.example.com', 'NS')).sort()).toEqual(['ns1.example.net.', 'ns2.example.net.']);
    expect(await serialServed('shop.example.com')).toBe(res.body.serial);
    const list = await t.get('/api/dns/zones', owner.bearer).expect(200);
    expect(list.body.data.map((z: { id: string }) => z.id)).toContain(res.body.id);
    await t.get(`/api/dns/zones/${res.body.id}`, owner.bearer).expect(200);
  });

  it('serves exactly the records written: A, AAAA, MX, TXT, CAA, SRV', async () => {
    const zone = (await createZone('records.example.org').expect(201)).body;
    const txt = 'v=spf1 "quoted"; include:_spf.example.org -all; héllo — 世界';
    const made = [
      { name: '@', type: 'A', value: '203.0.113.10' },
      { name: 'www', type: 'AAAA', value: '2001:DB8:0:0::10', ttl: 300 },
      { name: '@', type: 'MX', value: 'mail.records.example.org', priority: 10 },
      { name: '@', type: 'TXT', value: txt },
      { name: '@', type: 'CAA', value: '0 issue letsencrypt.org' },
      { name: '_sip._tcp', type: 'SRV', value: 'sip.records.example.org.', priority: 10, weight: 5, port: 5060 },
    ];
    for (const record of made) await addRecord(zone.id, record).expect(201);
    const stored = await records(zone.id);
    expect(stored.map((r: { value: string }) => r.value)).toEqual([
      '203.0.113.10',
      '2001:db8::10',
      'mail.records.example.org.',
      txt,
      '0 issue "letsencrypt.org"',
      'sip.records.example.org.',
    ]);
    const port = pdns.dnsPort;
    expect(await dig(port, 'records.example.org', 'A')).toEqual(['203.0.113.10']);
    expect(await dig(port, 'www.records.example.org', 'AAAA')).toEqual(['2001:db8::10']);
    expect(await dig(port, 'records.example.org', 'MX')).toEqual(['10 mail.records.example.org.']);
    const [txtServed] = await dig(port, 'records.example.org', 'TXT');
    expect(txtFromRdata(txtServed)).toBe(txt);
    expect(await dig(port, 'records.example.org', 'CAA')).toEqual(['0 issue "letsencrypt.org"']);
    expect(await dig(port, '_sip._tcp.records.example.org', 'SRV')).toEqual(['10 5 5060 sip.records.example.org.']);
    expect(await serialServed('records.example.org')).toBe((await t.get(`/api/dns/zones/${zone.id}`, owner.bearer)).body.serial);
  });

  it('changes and deletes records; the set keeps one TTL; a deleted record is gone', async () => {
    const zone = (await createZone('change.example.org').expect(201)).body;
    const a = (await addRecord(zone.id, { name: 'www', type: 'A', value: '203.0.113.1' }).expect(201)).body;
    const b = (await addRecord(zone.id, { name: 'www', type: 'A', value: '203.0.113.2', ttl: 120 }).expect(201)).body;
    expect((await records(zone.id)).map((r: { ttl: number }) => r.ttl)).toEqual([120, 120]);
    const changed = await call('patch', `/api/dns/zones/${zone.id}/records/${a.id}`).send({ value: '203.0.113.3' }).expect(200);
    expect(changed.body).toMatchObject({ name: 'www', type: 'A', value: '203.0.113.3', ttl: 120 });
    expect((await dig(pdns.dnsPort, 'www.change.example.org', 'A')).sort()).toEqual(['203.0.113.2', '203.0.113.3']);
    await call('delete', `/api/dns/zones/${zone.id}/records/${b.id}`).expect(204);
    await call('delete', `/api/dns/zones/${zone.id}/records/${a.id}`).expect(204);
    expect(await dig(pdns.dnsPort, 'www.change.example.org', 'A')).toEqual([]);
    await t.get(`/api/dns/zones/${zone.id}/records/${a.id}`, owner.bearer).expect(404);
  });

  it('refuses bad records with a 400 naming the field, and writes nothing', async () => {
    const zone = (await createZone('strict.example.org').expect(201)).body;
    await addRecord(zone.id, { name: 'www', type: 'A', value: '203.0.113.5' }).expect(201);
    const serial = await serialServed('strict.example.org');
    const refusals: [object, string][] = [
      [{ name: 'www', type: 'A', value: '203.0.113.300' }, 'value'],
      [{ name: 'www', type: 'AAAA', value: '203.0.113.1' }, 'value'],
      [{ name: '@', type: 'CNAME', value: 'other.example.org' }, 'name'],
      [{ name: 'www', type: 'CNAME', value: 'other.example.org' }, 'type'],
      [{ name: 'mail', type: 'MX', value: '203.0.113.9', priority: 10 }, 'value'],
      [{ name: 'mail', type: 'MX', value: 'mx.example.org' }, 'priority'],
      [{ name: 'www', type: 'A', value: '203.0.113.6', priority: 5 }, 'priority'],
      [{ name: 'bad_label-.x', type: 'A', value: '203.0.113.6' }, 'name'],
      [{ name: `${'a'.repeat(64)}`, type: 'A', value: '203.0.113.6' }, 'name'],
      [{ name: 'www.other.org.', type: 'A', value: '203.0.113.6' }, 'name'],
      [{ name: '@', type: 'CAA', value: '0 steal example.org' }, 'value'],
      [{ name: '@', type: 'NS', value: 'ns.elsewhere.org' }, 'name'],
      [{ name: 'www', type: 'A', value: '203.0.113.6', ttl: 5 }, 'ttl'],
      [{ name: 'www', type: 'PTR', value: 'x.example.org' }, 'type'],
    ];
    for (const [body, field] of refusals) {
      const res = await addRecord(zone.id, body).expect(400);
      expect(res.body.code).toBe('invalid_input');
      expect(res.body.errors.map((e: { field: string }) => e.field)).toContain(field);
    }
    expect((await records(zone.id)).length).toBe(1);
    expect(await serialServed('strict.example.org')).toBe(serial);
    expect(await dig(pdns.dnsPort, 'www.strict.example.org', 'A')).toEqual(['203.0.113.5']);
  });

  it('turns internationalised names into punycode', async () => {
    const zone = (await createZone('bücher.example').expect(201)).body;
    expect(zone.name).toBe('xn--bcher-kva.example');
    const rec = (await addRecord(zone.id, { name: 'straße', type: 'A', value: '203.0.113.7' }).expect(201)).body;
    expect(rec.name).toBe('xn--strae-oqa');
    expect(await dig(pdns.dnsPort, 'xn--strae-oqa.xn--bcher-kva.example', 'A')).toEqual(['203.0.113.7']);
  });

  it('round-trips a zone file: export, import into another zone, export again', async () => {
    const zone = (await createZone('export.example.org').expect(201)).body;
    for (const record of [
      { name: '@', type: 'A', value: '203.0.113.20' },
      { name: '*.dev', type: 'A', value: '203.0.113.21' },
      { name: 'www', type: 'CNAME', value: 'export.example.org.' },
      { name: '@', type: 'TXT', value: `long ${'x'.repeat(300)} "q"; é` },
      { name: 'sub', type: 'NS', value: 'ns.sub-host.example' },
    ])
      await addRecord(zone.id, record).expect(201);
    const exported = await t.get(`/api/dns/zones/${zone.id}/export`, owner.bearer).expect(200);
    expect(exported.headers['content-type']).toMatch(/^text\/plain/);
    expect(exported.text).toContain('$ORIGIN export.example.org.');
    expect(exported.text).toMatch(/SOA/);
    const copy = (await createZone('copy.example.org').expect(201)).body;
    const file = exported.text.replace(/export\.example\.org\./g, 'copy.example.org.');
    await call('post', `/api/dns/zones/${copy.id}/import`).set('Content-Type', 'text/plain').send(file).expect(200);
    const strip = (list: object[]) => list.map(({ id: _id, ...rest }: { id?: string }) => rest);
    const original = strip(await records(zone.id)).map((r) => JSON.stringify(r).replace(/export\.example\.org/g, 'copy.example.org'));
    expect(
      strip(await records(copy.id))
        .map((r) => JSON.stringify(r))
        .sort(),
    ).toEqual(original.sort());
    expect(await dig(pdns.dnsPort, 'x.dev.copy.example.org', 'A')).toEqual(['203.0.113.21']);
  });

  it('imports all or nothing, naming every refused line', async () => {
    const zone = (await createZone('import.example.org').expect(201)).body;
    await addRecord(zone.id, { name: 'keep', type: 'A', value: '203.0.113.30' }).expect(201);
    const file = [
      '$ORIGIN import.example.org.',
      'ok 300 IN A 203.0.113.31',
      'bad 300 IN A 999.1.1.1',
      'worse 300 IN PTR x.example.org.',
    ].join('\n');
    const res = await call('post', `/api/dns/zones/${zone.id}/import`).set('Content-Type', 'text/plain').send(file).expect(400);
    expect(res.body.errors.map((e: { field: string }) => e.field)).toEqual(['line 3', 'line 4']);
    expect((await records(zone.id)).map((r: { name: string }) => r.name)).toEqual(['keep']);
    expect(await dig(pdns.dnsPort, 'ok.import.example.org', 'A')).toEqual([]);
    const json = await call('post', `/api/dns/zones/${zone.id}/import`).send({ zone: 'x' });
    expect(json.status).toBe(415);
  });

  it('holds a zone name for one account: another gets 409 zone_exists and cannot see, change or delete it', async () => {
    const zone = (await createZone('owned.example.org').expect(201)).body;
    for (const name of ['owned.example.org', 'OWNED.example.org.', 'sub.owned.example.org', 'example.org']) {
      const res = await createZone(name, stranger).expect(409);
      expect(res.body.code).toBe('zone_exists');
      expect(JSON.stringify(res.body)).not.toContain(owner.id);
    }
    await createZone('owned.example.org').expect(409);
    await t.get(`/api/dns/zones/${zone.id}`, stranger.bearer).expect(404);
    await t.get(`/api/dns/zones/${zone.id}/records`, stranger.bearer).expect(404);
    await t.get(`/api/dns/zones/${zone.id}/export`, stranger.bearer).expect(404);
    await addRecord(zone.id, { name: 'x', type: 'A', value: '203.0.113.40' }, stranger).expect(404);
    await call('delete', `/api/dns/zones/${zone.id}`, stranger).expect(404);
    expect(await dig(pdns.dnsPort, 'x.owned.example.org', 'A')).toEqual([]);
    for (const name of ['com', 'co.uk', 'example.net', 'ns1.example.net', '113.0.203.in-addr.arpa', 'localhost', 'a..b']) {
      const res = await createZone(name).expect(400);
      expect(res.body.errors[0].field).toBe('name');
    }
  });

  it('keeps the limits of zones per account and records per zone', async () => {
    const account = await createAccount(t);
    for (let n = 1; n <= 12; n++) await createZone(`quota${n}.example.org`, account).expect(201);
    expect((await createZone('quota13.example.org', account).expect(409)).body.code).toBe('quota_exceeded');
    const zone = (await t.get('/api/dns/zones', account.bearer)).body.data[0];
    for (let n = 0; n < 12; n++) await addRecord(zone.id, { name: `h${n}`, type: 'A', value: `203.0.113.${n + 1}` }, account).expect(201);
    expect((await addRecord(zone.id, { name: 'h13', type: 'A', value: '203.0.113.99' }, account).expect(409)).body.code).toBe(
      'quota_exceeded',
    );
  });

  it('needs a token, and the write scope for every change', async () => {
    const reader = await createAccount(t, { scopes: ['read'] });
    const zone = (await createZone('scoped.example.org', reader).expect(201)).body;
    await request(t.http).get('/api/dns/zones').expect(401);
    await request(t.http).get(`/api/dns/zones/${zone.id}/records`).expect(401);
    await t.get('/api/dns/zones', reader.keyBearer).expect(200);
    for (const [method, path] of [
      ['post', '/api/dns/zones'],
      ['delete', `/api/dns/zones/${zone.id}`],
      ['post', `/api/dns/zones/${zone.id}/records`],
    ] as const) {
      const res = await call(method, path, reader, reader.keyBearer).send({ name: 'x.example.org', type: 'A', value: '203.0.113.1' });
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('insufficient_scope');
    }
  });

  it('records every change in the activity log', async () => {
    const account = await createAccount(t);
    const zone = (await createZone('logged.example.org', account).expect(201)).body;
    const rec = (await addRecord(zone.id, { name: 'www', type: 'A', value: '203.0.113.50' }, account).expect(201)).body;
    await call('patch', `/api/dns/zones/${zone.id}/records/${rec.id}`, account).send({ ttl: 600 }).expect(200);
    await call('delete', `/api/dns/zones/${zone.id}/records/${rec.id}`, account).expect(204);
    await call('post', `/api/dns/zones/${zone.id}/import`, account)
      .set('Content-Type', 'text/plain')
      .send('a 60 IN A 203.0.113.51\n')
      .expect(200);
    await call('delete', `/api/dns/zones/${zone.id}`, account).expect(204);
    const events = (await t.get(`/api/events?entityType=dns_zone&pageSize=10`, account.bearer).expect(200)).body.data;
    expect(events.map((e: { action: string }) => e.action).reverse()).toEqual([
      'dns_zone.create',
      'dns_record.create',
      'dns_record.update',
      'dns_record.delete',
      'dns_zone.import',
      'dns_zone.delete',
    ]);
    expect(await dig(pdns.dnsPort, 'logged.example.org', 'SOA')).toEqual([]);
  });

  it('answers 503 dns_unavailable while PowerDNS does not answer, and nothing is recorded as done', async () => {
    const zone = (await createZone('outage.example.org').expect(201)).body;
    const before = await records(zone.id);
    pdns.pause();
    try {
      const res = await addRecord(zone.id, { name: 'www', type: 'A', value: '203.0.113.60' }).expect(503);
      expect(res.body.code).toBe('dns_unavailable');
      expect((await createZone('never.example.org').expect(503)).body.code).toBe('dns_unavailable');
    } finally {
      pdns.resume();
    }
    // PowerDNS applies the requests it did not answer once it runs again; the repairs queued by the
    // 503s write the database's state over them.
    await waitFor(
      async () =>
        (
          await t.db.query(
            `SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'dns-zone-sync' AND state IN ('created', 'retry', 'active')`,
          )
        )[0].n,
      (n: number) => n === 0,
      60_000,
    );
    expect(await records(zone.id)).toEqual(before);
    expect(await dig(pdns.dnsPort, 'www.outage.example.org', 'A')).toEqual([]);
    expect((await t.get('/api/dns/zones?pageSize=100', owner.bearer)).body.data.map((z: { name: string }) => z.name)).not.toContain(
      'never.example.org',
    );
    expect(await dig(pdns.dnsPort, 'never.example.org', 'SOA')).toEqual([]);
    await addRecord(zone.id, { name: 'www', type: 'A', value: '203.0.113.60' }).expect(201);
  });

  it('reports the DNS servers in /health/ready', async () => {
    const res = await request(t.http).get('/health/ready').expect(200);
    expect(res.body.info.dns).toEqual({ status: 'up', provider: 'powerdns', reachable: true });
  });
});
