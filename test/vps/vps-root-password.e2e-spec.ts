import request from 'supertest';
import { createAccount, TestAccount } from '../factories/accounts';
import { createService } from '../factories/services';
import { startTestApp, TestApp } from '../support/test-app';
import { waitFor } from '../support/wait-for';
import { WebhookReceiver } from '../support/webhook-receiver';
import { capturedLog } from '../support/captured-log';

const PASSWORD_SHAPE = /^[A-HJ-NP-Za-km-z2-9]{20}$/;

/** Root password reset on the simulator, with the app's log captured at trace level. */
describe('VPS root password reset (simulator)', () => {
  let t: TestApp;
  let owner: TestAccount;
  let stranger: TestAccount;
  const receiver = new WebhookReceiver();
  const captured = capturedLog();
  const passwords: string[] = [];

  beforeAll(async () => {
    await receiver.start();
    t = await startTestApp({ WEBHOOKS_ALLOW_HTTP: 'true', WEBHOOKS_ALLOW_PRIVATE: 'true', LOG_LEVEL: 'trace' }, captured.logging);
    owner = await createAccount(t);
    stranger = await createAccount(t);
    await request(t.http)
      .post('/api/webhooks')
      .set('Authorization', owner.bearer)
      .send({ url: receiver.url, events: ['*'] })
      .expect(201);
  });
  afterAll(async () => {
    await t.close();
    await receiver.stop();
  });

  const reset = (serviceId: string, bearer?: string) => {
    const req = request(t.http).post(`/api/services/${serviceId}/instance/reset-password`);
    return bearer ? req.set('Authorization', bearer) : req;
  };

  it('answers 200 with a new password each time, not to be stored; the simulator records that it was set', async () => {
    const vps = await createService(t, owner.id, { powerState: 'running' });
    const first = await reset(vps.id, owner.keyBearer).expect(200);
    expect(first.headers['cache-control']).toBe('no-store');
    expect(Object.keys(first.body)).toEqual(['rootPassword']);
    expect(first.body.rootPassword).toMatch(PASSWORD_SHAPE);
    const second = await reset(vps.id, owner.bearer).expect(200);
    expect(second.body.rootPassword).toMatch(PASSWORD_SHAPE);
    expect(second.body.rootPassword).not.toBe(first.body.rootPassword);
    passwords.push(first.body.rootPassword, second.body.rootPassword);
    const set = await t.db.query(`SELECT count(*)::int AS n FROM compute_simulator_tasks WHERE instance_ref = $1 AND type = 'password'`, [
      `sim-${vps.id}`,
    ]);
    expect(set).toEqual([{ n: 2 }]);
    // Setting a password is no power change: the VPS stays running.
    expect((await t.get(`/api/services/${vps.id}`, owner.bearer).expect(200)).body.instance.powerState).toBe('running');
  });

  it('records instance.password_reset in the activity log without the password', async () => {
    const vps = await createService(t, owner.id, { powerState: 'running' });
    const res = await reset(vps.id, owner.keyBearer).expect(200);
    passwords.push(res.body.rootPassword);
    const events = await t.get(`/api/events?action=instance.password_reset`, owner.bearer).expect(200);
    const entry = events.body.data.find((e: { entity: { id: string } }) => e.entity.id === vps.id);
    expect(entry).toMatchObject({
      action: 'instance.password_reset',
      entity: { type: 'service', id: vps.id },
      actor: { type: 'api_key', id: owner.apiKeyId },
      status: 'succeeded',
      details: { user: 'root' },
    });
  });

  it('refuses a stopped VPS with 409 invalid_state, and records nothing', async () => {
    const vps = await createService(t, owner.id, { powerState: 'stopped' });
    const res = await reset(vps.id, owner.bearer).expect(409);
    expect(res.body).toMatchObject({ code: 'invalid_state', detail: expect.stringMatching(/stopped/) });
    expect(res.body.rootPassword).toBeUndefined();
    const rows = await t.db.query(`SELECT 1 FROM activity_events WHERE entity_id = $1 AND action = 'instance.password_reset'`, [vps.id]);
    expect(rows).toEqual([]);
  });

  it("answers 404 for another account's VPS and for a service without an instance, 403 to a read-only key, 401 without a token", async () => {
    const vps = await createService(t, owner.id, { powerState: 'running' });
    expect((await reset(vps.id, stranger.bearer).expect(404)).body.code).toBe('not_found');
    const bucket = await createService(t, owner.id, { type: 'object_storage' });
    expect((await reset(bucket.id, owner.bearer).expect(404)).body.code).toBe('not_found');
    const reader = await createAccount(t, { scopes: ['read'] });
    const readersVps = await createService(t, reader.id, { powerState: 'running' });
    expect((await reset(readersVps.id, reader.keyBearer).expect(403)).body.code).toBe('insufficient_scope');
    await reset(vps.id).expect(401);
    const set = await t.db.query(`SELECT 1 FROM compute_simulator_tasks WHERE instance_ref = ANY($1) AND type = 'password'`, [
      [`sim-${vps.id}`, `sim-${readersVps.id}`],
    ]);
    expect(set).toEqual([]);
  });

  it('the passwords appear nowhere: activity log, webhook deliveries and bodies, notifications, idempotency keys, the log', async () => {
    expect(passwords).toHaveLength(3);
    // Every reset reached the webhook (without the password)...
    await waitFor(
      () => Promise.resolve(receiver.received.filter((r) => r.json.type === 'instance.password_reset').length),
      (n) => n === 3,
      30_000,
    );
    const tables = ['activity_events', 'webhook_deliveries', 'webhook_delivery_attempts', 'notifications', 'idempotency_keys'];
    const stored: Record<string, string> = {};
    for (const table of tables) stored[table] = JSON.stringify(await t.db.query(`SELECT * FROM ${table}`));
    const bodies = receiver.received.map((r) => r.body).join('\n');
    // The log did capture the requests (so its silence about the passwords means something).
    const log = captured.lines.join('');
    expect(log).toMatch(/reset-password/);
    for (const password of passwords) {
      for (const table of tables) expect({ table, found: stored[table].includes(password) }).toEqual({ table, found: false });
      expect({ where: 'webhooks', found: bodies.includes(password) }).toEqual({ where: 'webhooks', found: false });
      expect({ where: 'log', found: log.includes(password) }).toEqual({ where: 'log', found: false });
    }
  });
});

describe('VPS root password reset: the per-account limit', () => {
  let t: TestApp;
  let owner: TestAccount;
  beforeAll(async () => {
    t = await startTestApp({ RATE_LIMIT_ROOT_PASSWORD_PER_HOUR: '2' });
    owner = await createAccount(t);
  });
  afterAll(() => t.close());

  it('counts passwords set, per account: a refused reset is not counted; the third is 429', async () => {
    const running = await createService(t, owner.id, { powerState: 'running' });
    const stopped = await createService(t, owner.id, { powerState: 'stopped' });
    const post = (id: string, bearer = owner.bearer) =>
      request(t.http).post(`/api/services/${id}/instance/reset-password`).set('Authorization', bearer);
    await post(stopped.id).expect(409);
    await post(running.id).expect(200);
    await post(running.id, owner.keyBearer).expect(200);
    const limited = await post(running.id).expect(429);
    expect(limited.body.code).toBe('rate_limited');
    // Another account has its own budget.
    const other = await createAccount(t);
    const theirs = await createService(t, other.id, { powerState: 'running' });
    await post(theirs.id, other.bearer).expect(200);
  });
});
