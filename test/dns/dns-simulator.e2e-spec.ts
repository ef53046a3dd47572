import request from 'supertest';
import { createAccount, TestAccount } from '../factories/accounts';
import { startTestApp, TestApp } from '../support/test-app';

/** The embedded default (DNS_PROVIDER unset): the DNS routes work on the simulator, and /health/ready says so. */
describe('DNS on the simulator', () => {
  let t: TestApp;
  let owner: TestAccount;

  beforeAll(async () => {
    t = await startTestApp();
    owner = await createAccount(t);
  });
  afterAll(() => t.close());

  it('keeps zones and records, raises the serial on each change, and exports the zone', async () => {
    const zone = (
      await request(t.http).post('/api/dns/zones').set('Authorization', owner.bearer).send({ name: 'sim.example.org' }).expect(201)
    ).body;
    expect(zone.nameservers).toEqual(['ns1.example.net', 'ns2.example.net']);
    const rec = await request(t.http)
      .post(`/api/dns/zones/${zone.id}/records`)
      .set('Authorization', owner.bearer)
      .send({ name: 'www', type: 'A', value: '203.0.113.9' })
      .expect(201);
    expect(rec.body).toEqual({
      id: expect.any(String),
      name: 'www',
      type: 'A',
      ttl: 3600,
      value: '203.0.113.9',
      priority: null,
      weight: null,
      port: null,
    });
    const after = (await t.get(`/api/dns/zones/${zone.id}`, owner.bearer).expect(200)).body;
    expect(after.serial).toBeGreaterThan(zone.serial);
    const file = (await t.get(`/api/dns/zones/${zone.id}/export`, owner.bearer).expect(200)).text;
    expect(file).toMatch(/^www\s+3600\s+IN\s+A\s+203\.0\.113\.9$/m);
    expect(file).toContain(` ${after.serial} `);
    await request(t.http).delete(`/api/dns/zones/${zone.id}`).set('Authorization', owner.bearer).expect(204);
    await t.get(`/api/dns/zones/${zone.id}`, owner.bearer).expect(404);
  });

  it('says in /health/ready that DNS is the simulator', async () => {
    const res = await request(t.http).get('/health/ready').expect(200);
    expect(res.body.info.dns).toEqual({ status: 'up', provider: 'simulator', reachable: true });
  });
});
