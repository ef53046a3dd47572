import request from 'supertest';
import { createAccount, TestAccount } from '../factories/accounts';
import { createService } from '../factories/services';
import { runCliIn } from '../support/run-cli-in-app';
import { startTestApp, TestApp } from '../support/test-app';
import { waitFor } from '../support/wait-for';

/**
 * Cloud firewalls' API rules on the simulator (issue 52): the rule checks, limits, ownership,
 * scopes, apply and remove with their enforcement status, the VPS's `instance.firewalls`, and the
 * activity log. The traffic itself is tested on a real guest (vps-bridge-libvirt.e2e-spec.ts).
 */
describe('Firewalls (simulator)', () => {
  let t: TestApp;
  let owner: TestAccount;
  let stranger: TestAccount;

  beforeAll(async () => {
    t = await startTestApp({ FIREWALLS_PER_ACCOUNT: '3', FIREWALL_RULES_MAX: '4' });
    owner = await createAccount(t);
    stranger = await createAccount(t);
  });
  afterAll(() => t.close());

  const web = { direction: 'in', protocol: 'tcp', port: '80', addresses: ['0.0.0.0/0', '::/0'] };
  const call = (method: 'post' | 'patch' | 'delete', path: string, who: TestAccount = owner, bearer = who.bearer) =>
    request(t.http)[method](path).set('Authorization', bearer);
  const create = (body: object, who: TestAccount = owner) => call('post', '/api/firewalls', who).send(body);
  const firewall = async (id: string, who: TestAccount = owner) => (await t.get(`/api/firewalls/${id}`, who.bearer).expect(200)).body;
  const count = async (account: TestAccount) =>
    (await t.db.query(`SELECT count(*)::int AS n FROM firewalls WHERE account_id = $1`, [account.id]))[0].n as number;
  const clear = (account: TestAccount) => t.db.query(`DELETE FROM firewalls WHERE account_id = $1`, [account.id]);
  const applied = (id: string) =>
    waitFor(
      () => firewall(id),
      (f) => f.appliedTo.length > 0 && f.appliedTo.every((a: { status: string }) => a.status === 'applied'),
      20_000,
    );

  it('creates a firewall with its rules in canonical form, and lists and gets it', async () => {
    const res = await create({
      name: ' web ',
      rules: [
        { ...web, addresses: ['0.0.0.0/0', '2001:DB8:0:0::/32'], description: 'http' },
        { direction: 'in', protocol: 'icmp', addresses: ['198.51.100.7'] },
      ],
    }).expect(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      name: 'web',
      rules: [
        { direction: 'in', protocol: 'tcp', port: '80', addresses: ['0.0.0.0/0', '2001:db8::/32'], description: 'http' },
        { direction: 'in', protocol: 'icmp', addresses: ['198.51.100.7/32'] },
      ],
      appliedTo: [],
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const list = await t.get('/api/firewalls?pageSize=1', owner.bearer).expect(200);
    expect(list.body.data.map((f: { id: string }) => f.id)).toEqual([res.body.id]);
    expect(list.body).toMatchObject({ page: 1, pageSize: 1, total: 1 });
    expect(await firewall(res.body.id)).toEqual(res.body);
    expect((await create({ name: 'empty' }).expect(201)).body.rules).toEqual([]);
    await clear(owner);
  });

  it('refuses malformed rules with a 400 naming each rule and field, and writes nothing', async () => {
    const res = await create({
      name: 'bad',
      rules: [
        web,
        { direction: 'in', protocol: 'tcp', port: '0-70000', addresses: ['0.0.0.0/0'] },
        { direction: 'in', protocol: 'icmp', port: '8', addresses: ['10.0.0.300/8', '10.0.0.1/8'] },
      ],
    }).expect(400);
    expect(res.body.code).toBe('invalid_input');
    expect(res.body.errors.map((e: { field: string }) => e.field)).toEqual([
      'rules[1].port',
      'rules[2].port',
      'rules[2].addresses[0]',
      'rules[2].addresses[1]',
    ]);
    expect(res.body.detail).toContain('the network is 10.0.0.0/8');
    for (const rules of [
      [{ ...web, direction: 'both' }],
      [{ ...web, protocol: 'gre' }],
      [{ ...web, addresses: [] }],
      [{ ...web, addresses: 'any' }],
      ['tcp 80'],
    ]) {
      const refused = await create({ name: 'bad', rules }).expect(400);
      expect(refused.body.code).toBe('invalid_input');
      expect(refused.body.detail).toMatch(/rules/);
    }
    await create({ name: '', rules: [] }).expect(400);
    expect(await count(owner)).toBe(0);
  });

  it('keeps to FIREWALLS_PER_ACCOUNT and FIREWALL_RULES_MAX (409 quota_exceeded) and to unique names (409 duplicate_name)', async () => {
    const five = Array.from({ length: 5 }, (_, i) => ({ ...web, port: String(8000 + i) }));
    expect((await create({ name: 'many', rules: five }).expect(409)).body.code).toBe('quota_exceeded');
    const first = (await create({ name: 'one', rules: five.slice(0, 4) }).expect(201)).body;
    expect((await call('patch', `/api/firewalls/${first.id}`).send({ rules: five }).expect(409)).body.code).toBe('quota_exceeded');
    expect((await create({ name: 'one' }).expect(409)).body.code).toBe('duplicate_name');
    await create({ name: 'two' }).expect(201);
    const third = (await create({ name: 'three' }).expect(201)).body;
    expect((await call('patch', `/api/firewalls/${third.id}`).send({ name: 'two' }).expect(409)).body.code).toBe('duplicate_name');
    expect((await create({ name: 'four' }).expect(409)).body.code).toBe('quota_exceeded');
    expect(await count(owner)).toBe(3);
    await create({ name: 'one' }, stranger).expect(201);
    await clear(owner);
    await clear(stranger);
  });

  it('applies to the VPSes of the account, shows each one enforced, and the VPS shows its firewalls', async () => {
    const vps = await createService(t, owner.id);
    const fw = (await create({ name: 'web', rules: [web] }).expect(201)).body;
    const res = await call('post', `/api/firewalls/${fw.id}/apply`)
      .send({ serviceIds: [vps.id] })
      .expect(200);
    expect(res.body.appliedTo).toEqual([{ serviceId: vps.id, status: expect.stringMatching(/^(pending|applied)$/) }]);
    expect((await applied(fw.id)).appliedTo).toEqual([{ serviceId: vps.id, status: 'applied' }]);
    const service = (await t.get(`/api/services/${vps.id}`, owner.bearer).expect(200)).body;
    expect(service.instance.firewalls).toEqual([{ id: fw.id, name: 'web', status: 'applied' }]);
    // Applying again changes nothing.
    await call('post', `/api/firewalls/${fw.id}/apply`)
      .send({ serviceIds: [vps.id] })
      .expect(200);
    expect((await firewall(fw.id)).appliedTo).toEqual([{ serviceId: vps.id, status: 'applied' }]);

    const patched = await call('patch', `/api/firewalls/${fw.id}`)
      .send({ rules: [web, { ...web, port: '8080' }] })
      .expect(200);
    expect(patched.body.rules.map((r: { port: string }) => r.port)).toEqual(['80', '8080']);
    expect((await applied(fw.id)).appliedTo).toEqual([{ serviceId: vps.id, status: 'applied' }]);

    expect((await call('delete', `/api/firewalls/${fw.id}`).expect(409)).body.code).toBe('firewall_in_use');
    const removed = await call('post', `/api/firewalls/${fw.id}/remove`)
      .send({ serviceIds: [vps.id] })
      .expect(200);
    expect(removed.body.appliedTo).toEqual([]);
    expect((await t.get(`/api/services/${vps.id}`, owner.bearer).expect(200)).body.instance.firewalls).toEqual([]);
    await call('delete', `/api/firewalls/${fw.id}`).expect(204);
    await t.get(`/api/firewalls/${fw.id}`, owner.bearer).expect(404);
  });

  it("refuses another account's VPS and firewall (404), services that are no VPS, user networking and terminated VPSes", async () => {
    const fw = (await create({ name: 'guard', rules: [web] }).expect(201)).body;
    const mine = await createService(t, owner.id);
    const theirs = await createService(t, stranger.id);
    const storage = await createService(t, owner.id, { type: 'object_storage' });
    const apply = (serviceIds: string[]) => call('post', `/api/firewalls/${fw.id}/apply`).send({ serviceIds });

    const notMine = await apply([mine.id, theirs.id]).expect(404);
    expect(notMine.body.detail).toContain(theirs.id);
    await apply([storage.id]).expect(404);
    await apply(['00000000-0000-4000-8000-000000000000']).expect(404);
    expect((await firewall(fw.id)).appliedTo).toEqual([]);

    for (const path of [`/api/firewalls/${fw.id}`, `/api/firewalls/${fw.id}/apply`]) {
      const res = path.endsWith('apply')
        ? await call('post', path, stranger).send({ serviceIds: [theirs.id] })
        : await t.get(path, stranger.bearer);
      expect(res.status).toBe(404);
    }
    await call('patch', `/api/firewalls/${fw.id}`, stranger).send({ name: 'x' }).expect(404);
    await call('delete', `/api/firewalls/${fw.id}`, stranger).expect(404);

    const user = await createService(t, owner.id);
    await t.db.query(`UPDATE vps_instances SET network = $2::jsonb WHERE service_id = $1`, [
      user.id,
      JSON.stringify({ mode: 'user', mac: '52:54:00:00:00:01', sshHost: '127.0.0.1', sshPort: 22001 }),
    ]);
    expect((await apply([user.id]).expect(409)).body.code).toBe('unsupported_network_mode');
    expect((await runCliIn(t.app, ['service:set-status', '--id', mine.id, '--status', 'terminated'])).code).toBe(0);
    expect((await apply([mine.id]).expect(409)).body.code).toBe('invalid_state');
    expect((await firewall(fw.id)).appliedTo).toEqual([]);
    for (const body of [{}, { serviceIds: [] }, { serviceIds: ['not-a-uuid'] }, { serviceIds: [user.id, user.id] }])
      await call('post', `/api/firewalls/${fw.id}/apply`).send(body).expect(400);
  });

  it('takes a terminated VPS off its firewalls', async () => {
    const vps = await createService(t, owner.id);
    const fw = (await create({ name: 'ends' }).expect(201)).body;
    await call('post', `/api/firewalls/${fw.id}/apply`)
      .send({ serviceIds: [vps.id] })
      .expect(200);
    expect((await runCliIn(t.app, ['service:set-status', '--id', vps.id, '--status', 'terminated'])).code).toBe(0);
    expect((await firewall(fw.id)).appliedTo).toEqual([]);
    await call('delete', `/api/firewalls/${fw.id}`).expect(204);
  });

  it('needs a token, and the write scope for every change', async () => {
    const fw = (await create({ name: 'scoped' }).expect(201)).body;
    const reader = await createAccount(t, { scopes: ['read'] });
    for (const res of [
      await request(t.http).get('/api/firewalls'),
      await request(t.http).post('/api/firewalls').send({ name: 'x' }),
      await request(t.http).get(`/api/firewalls/${fw.id}`),
    ])
      expect(res.status).toBe(401);
    const own = (await create({ name: 'read-only' }, reader).expect(201)).body;
    await t.get('/api/firewalls', reader.keyBearer).expect(200);
    await t.get(`/api/firewalls/${own.id}`, reader.keyBearer).expect(200);
    for (const [method, path] of [
      ['post', '/api/firewalls'],
      ['patch', `/api/firewalls/${own.id}`],
      ['delete', `/api/firewalls/${own.id}`],
      ['post', `/api/firewalls/${own.id}/apply`],
      ['post', `/api/firewalls/${own.id}/remove`],
    ] as const) {
      const res = await call(method, path, reader, reader.keyBearer).send({ name: 'x', serviceIds: [own.id] });
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('insufficient_scope');
    }
    expect(await count(reader)).toBe(1);
  });

  it('records every change in the activity log', async () => {
    const account = await createAccount(t);
    const vps = await createService(t, account.id);
    const fw = (await create({ name: 'logged', rules: [web] }, account).expect(201)).body;
    await call('patch', `/api/firewalls/${fw.id}`, account).send({ rules: [] }).expect(200);
    await call('post', `/api/firewalls/${fw.id}/apply`, account)
      .send({ serviceIds: [vps.id] })
      .expect(200);
    await call('post', `/api/firewalls/${fw.id}/remove`, account)
      .send({ serviceIds: [vps.id] })
      .expect(200);
    await call('delete', `/api/firewalls/${fw.id}`, account).expect(204);
    const events = (await t.get(`/api/events?entityType=firewall&pageSize=10`, account.bearer).expect(200)).body.data;
    expect(events.map((e: { action: string }) => e.action).reverse()).toEqual([
      'firewall.create',
      'firewall.update',
      'firewall.apply',
      'firewall.remove',
      'firewall.delete',
    ]);
    expect(events.find((e: { action: string }) => e.action === 'firewall.apply').details).toEqual({ serviceIds: [vps.id] });
  });
});
