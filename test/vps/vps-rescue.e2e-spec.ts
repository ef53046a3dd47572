import request from 'supertest';
import { RescueExpiryJob } from '../../libs/vps/src/rescue/rescue-expiry.job';
import { createAccount, TestAccount } from '../factories/accounts';
import { createImage, uploadSshKey } from '../factories/images';
import { notificationsOf } from '../factories/notifications';
import { createService } from '../factories/services';
import { TestSmtpServer } from '../support/smtp';
import { startTestApp, TestApp } from '../support/test-app';
import { waitFor } from '../support/wait-for';
import { WebhookReceiver } from '../support/webhook-receiver';
import { capturedLog } from '../support/captured-log';

const PASSWORD_SHAPE = /^[A-HJ-NP-Za-km-z2-9]{20}$/;

interface Action {
  id: string;
  type: string;
  status: string;
  error: unknown;
}

/**
 * Rescue mode on the simulator (state only), with the app's log captured at trace
 * level, a webhook receiver and a real SMTP server: the rescue's password is in the 202 alone.
 */
describe('VPS rescue mode (simulator)', () => {
  let t: TestApp;
  let owner: TestAccount;
  let stranger: TestAccount;
  let rescueImage: { id: string; slug: string };
  let system: { id: string; slug: string };
  const smtp = new TestSmtpServer();
  const receiver = new WebhookReceiver();
  const captured = capturedLog();
  const passwords: string[] = [];

  beforeAll(async () => {
    await smtp.start();
    await receiver.start();
    t = await startTestApp(
      {
        SMTP_URL: smtp.url,
        WEBHOOKS_ALLOW_HTTP: 'true',
        WEBHOOKS_ALLOW_PRIVATE: 'true',
        LOG_LEVEL: 'trace',
        RATE_LIMIT_RESCUE_PER_HOUR: '100',
      },
      captured.logging,
    );
    owner = await createAccount(t);
    stranger = await createAccount(t);
    rescueImage = await createImage(t, { gib: 1, rescue: true });
    system = await createImage(t, { gib: 1 });
    await request(t.http)
      .post('/api/webhooks')
      .set('Authorization', owner.bearer)
      .send({ url: receiver.url, events: ['*'] })
      .expect(201);
  });
  afterAll(async () => {
    await t.close();
    await receiver.stop();
    await smtp.stop();
  });

  const post = (path: string, bearer?: string) => {
    const req = request(t.http).post(path);
    return bearer ? req.set('Authorization', bearer) : req;
  };
  const rescue = (id: string, bearer?: string, body: object = {}) => post(`/api/services/${id}/instance/rescue`, bearer).send(body);
  const unrescue = (id: string, bearer?: string) => post(`/api/services/${id}/instance/unrescue`, bearer);
  const instance = async (id: string) => (await t.get(`/api/services/${id}`, owner.bearer).expect(200)).body.instance;
  const ended = (serviceId: string, actionId: string) =>
    waitFor(
      async () => (await t.get(`/api/services/${serviceId}/instance/actions/${actionId}`, owner.bearer).expect(200)).body as Action,
      (action) => action.status !== 'running',
      20_000,
    );
  const rescueRow = async (id: string) => (await t.db.query(`SELECT service_id FROM vps_rescues WHERE service_id = $1`, [id])).length;
  const rescued = async (bearer = owner.bearer, state: 'running' | 'stopped' = 'running') => {
    const vps = await createService(t, owner.id, { powerState: state });
    const res = await rescue(vps.id, bearer).expect(202);
    passwords.push(res.body.rootPassword);
    expect(await ended(vps.id, res.body.id)).toMatchObject({ type: 'rescue', status: 'succeeded' });
    return { vps, res };
  };

  it('rescue: 202 with Location, no-store and the password once; the VPS runs the rescue system, rescue: true', async () => {
    await uploadSshKey(t, owner.bearer);
    const vps = await createService(t, owner.id, { powerState: 'stopped' });
    expect((await instance(vps.id)).rescue).toBe(false);
    const res = await rescue(vps.id, owner.keyBearer).expect(202);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers.location).toMatch(new RegExp(`/api/services/${vps.id}/instance/actions/${res.body.id}$`));
    expect(res.body).toMatchObject({
      type: 'rescue',
      status: 'running',
      serviceId: vps.id,
      rootPassword: expect.stringMatching(PASSWORD_SHAPE),
    });
    const hours = (Date.parse(res.body.rescueEndsAt) - Date.now()) / 3_600_000;
    expect(hours).toBeGreaterThan(23.9);
    expect(hours).toBeLessThanOrEqual(24);
    passwords.push(res.body.rootPassword);
    const action = await ended(vps.id, res.body.id);
    expect(action).toMatchObject({ type: 'rescue', status: 'succeeded', error: null });
    expect(action).not.toHaveProperty('rootPassword');
    expect(await instance(vps.id)).toMatchObject({ powerState: 'running', rescue: true });
    // The action kept what the seed needed; root's password hash went when it ended (test/vps/vps-rescue-rules.e2e-spec.ts).
    const [{ params }] = await t.db.query(`SELECT params FROM instance_actions WHERE id = $1`, [res.body.id]);
    expect(params.rescue.boot).toMatchObject({ imageId: rescueImage.id, seed: { hostname: 'rescue' } });
    expect(params.rescue.boot.seed).not.toHaveProperty('rootPasswordHash');
    expect(params.rescue.boot.seed.sshKeys).toHaveLength(1);
  });

  it('power actions work in rescue and stay in it; rebuild, snapshot, reset-password and a second rescue answer 409', async () => {
    const { vps } = await rescued();
    const stop = await post(`/api/services/${vps.id}/instance/stop`, owner.bearer).expect(202);
    expect((await ended(vps.id, stop.body.id)).status).toBe('succeeded');
    const start = await post(`/api/services/${vps.id}/instance/start`, owner.bearer).expect(202);
    expect((await ended(vps.id, start.body.id)).status).toBe('succeeded');
    const reboot = await post(`/api/services/${vps.id}/instance/reboot`, owner.bearer).expect(202);
    expect((await ended(vps.id, reboot.body.id)).status).toBe('succeeded');
    expect(await instance(vps.id)).toMatchObject({ powerState: 'running', rescue: true });

    const refusals = [
      await post(`/api/services/${vps.id}/instance/rebuild`, owner.bearer).send({ image: system.slug }),
      await post(`/api/services/${vps.id}/instance/snapshots`, owner.bearer).send({ name: 'in rescue' }),
      await post(`/api/services/${vps.id}/instance/reset-password`, owner.bearer),
      await rescue(vps.id, owner.bearer),
    ];
    for (const res of refusals) expect({ status: res.status, code: res.body.code }).toEqual({ status: 409, code: 'invalid_state' });
    expect(refusals[0].body.detail).toMatch(/rescue mode/);
    expect(refusals[3].body.rootPassword).toBeUndefined();
  });

  it('shows the rescue system’s own host key while in rescue, a new one each rescue, and the VPS’s again after (issue 58)', async () => {
    const vps = await createService(t, owner.id, { image: system.slug });
    const keyOf = async () => (await instance(vps.id)).ssh.hostKeys.map((k: { publicKey: string }) => k.publicKey);
    const own = await keyOf();
    expect(own).toEqual([expect.stringMatching(/^ssh-ed25519 /)]);
    const seen: string[][] = [];
    for (let round = 0; round < 2; round++) {
      const res = await rescue(vps.id, owner.bearer).expect(202);
      passwords.push(res.body.rootPassword);
      expect((await ended(vps.id, res.body.id)).status).toBe('succeeded');
      seen.push(await keyOf());
      // The private key goes to the hypervisor in the seed, never into the action's record.
      const [{ params }] = await t.db.query(`SELECT params FROM instance_actions WHERE id = $1`, [res.body.id]);
      expect(JSON.stringify(params)).not.toMatch(/PRIVATE KEY|hostKeys/);
      const back = await unrescue(vps.id, owner.bearer).expect(202);
      expect((await ended(vps.id, back.body.id)).status).toBe('succeeded');
      expect(await keyOf()).toEqual(own);
    }
    expect(seen[0]).toEqual([expect.stringMatching(/^ssh-ed25519 /)]);
    expect(new Set([own[0], seen[0][0], seen[1][0]]).size).toBe(3);
  });

  it('unrescue: 202, the VPS boots its own disk, rescue: false; a second unrescue is 409', async () => {
    const { vps } = await rescued();
    await unrescue(vps.id).expect(401);
    const res = await unrescue(vps.id, owner.keyBearer).expect(202);
    expect(res.headers.location).toMatch(new RegExp(`/instance/actions/${res.body.id}$`));
    expect(res.body).toMatchObject({ type: 'unrescue', status: 'running' });
    expect((await ended(vps.id, res.body.id)).status).toBe('succeeded');
    await waitFor(
      () => rescueRow(vps.id),
      (n) => n === 0,
      10_000,
    );
    expect(await instance(vps.id)).toMatchObject({ powerState: 'running', rescue: false });
    expect((await unrescue(vps.id, owner.bearer).expect(409)).body.detail).toMatch(/not in rescue mode/);
    // The own root is reachable again.
    await post(`/api/services/${vps.id}/instance/reset-password`, owner.bearer)
      .expect(200)
      .then((r) => passwords.push(r.body.rootPassword));
  });

  it('keys: the chosen ones only; another account’s key is 404, a malformed id 400, and nothing changes', async () => {
    const mine = await uploadSshKey(t, owner.bearer);
    const theirs = await uploadSshKey(t, stranger.bearer);
    const vps = await createService(t, owner.id, { powerState: 'running' });
    expect((await rescue(vps.id, owner.bearer, { sshKeyIds: [mine, theirs] }).expect(404)).body.code).toBe('not_found');
    const bad = await rescue(vps.id, owner.bearer, { sshKeyIds: ['nope'] }).expect(400);
    expect(bad.body.code).toBe('invalid_input');
    await rescue(vps.id, owner.bearer, { sshKeyIds: 'all' }).expect(400);
    await rescue(vps.id, owner.bearer, { sshKeyIds: [mine], extra: 1 }).expect(400);
    expect(await rescueRow(vps.id)).toBe(0);
    const res = await rescue(vps.id, owner.bearer, { sshKeyIds: [mine] }).expect(202);
    passwords.push(res.body.rootPassword);
    const [{ params }] = await t.db.query(`SELECT params FROM instance_actions WHERE id = $1`, [res.body.id]);
    expect(params.rescue.boot.seed.sshKeys).toHaveLength(1);
    await ended(vps.id, res.body.id);
  });

  it("404 for another account's VPS and for a service without an instance, 403 to a read-only key, 401 without a token", async () => {
    const vps = await createService(t, owner.id, { powerState: 'running' });
    expect((await rescue(vps.id, stranger.bearer).expect(404)).body.code).toBe('not_found');
    expect((await unrescue(vps.id, stranger.bearer).expect(404)).body.code).toBe('not_found');
    const bucket = await createService(t, owner.id, { type: 'object_storage' });
    await rescue(bucket.id, owner.bearer).expect(404);
    const reader = await createAccount(t, { scopes: ['read'] });
    const readersVps = await createService(t, reader.id, { powerState: 'running' });
    expect((await rescue(readersVps.id, reader.keyBearer).expect(403)).body.code).toBe('insufficient_scope');
    await rescue(vps.id).expect(401);
    await rescue('not-a-uuid', owner.bearer).expect(400);
    expect(await rescueRow(vps.id)).toBe(0);
    expect(await rescueRow(readersVps.id)).toBe(0);
  });

  it('ends by itself after RESCUE_HOURS: the expiry job unrescues as the system, with a notice', async () => {
    const { vps } = await rescued();
    const job = t.app.get(RescueExpiryJob);
    expect(await job.endExpired()).toBe(0); // not due yet
    await t.db.query(`UPDATE vps_rescues SET ends_at = now() - interval '1 minute' WHERE service_id = $1`, [vps.id]);
    expect(await job.endExpired()).toBe(1);
    const [{ id }] = await t.db.query(`SELECT id FROM instance_actions WHERE service_id = $1 AND type = 'unrescue'`, [vps.id]);
    expect((await ended(vps.id, id)).status).toBe('succeeded');
    await waitFor(
      () => rescueRow(vps.id),
      (n) => n === 0,
      10_000,
    );
    expect(await instance(vps.id)).toMatchObject({ rescue: false });
    const events = await t.get(`/api/events?action=instance.unrescue`, owner.bearer).expect(200);
    const entry = events.body.data.find((e: { entity: { id: string } }) => e.entity.id === vps.id);
    expect(entry).toMatchObject({ actor: { type: 'system' }, details: { actionId: id, reason: 'expired' } });
    const notices = await waitFor(
      async () => (await notificationsOf(t, owner)).filter((n) => n.entity?.id === vps.id && n.type === 'instance_rescue_ended'),
      (found) => found.length === 1,
      10_000,
    );
    expect(notices[0].body).toMatch(/ran out of time/);
    await smtp.waitForMail(owner.email, /is leaving rescue mode/);
    expect(await job.endExpired()).toBe(0);
  });

  it('records instance.rescue / instance.unrescue, notifies and mails the owner, and never shows a password', async () => {
    const { vps } = await rescued(owner.keyBearer);
    const entry = (await t.get(`/api/events?action=instance.rescue`, owner.bearer).expect(200)).body.data.find(
      (e: { entity: { id: string } }) => e.entity.id === vps.id,
    );
    expect(entry).toMatchObject({
      action: 'instance.rescue',
      actor: { type: 'api_key', id: owner.apiKeyId },
      status: 'succeeded',
      details: { image: rescueImage.slug, sshKeyIds: expect.any(Array), endsAt: expect.any(String) },
    });
    const started = await waitFor(
      async () => (await notificationsOf(t, owner)).filter((n) => n.entity?.id === vps.id && n.type === 'instance_rescue_started'),
      (found) => found.length === 1,
      10_000,
    );
    expect(started[0]).toMatchObject({ severity: 'warning' });
    const mail = await smtp.waitForMail(owner.email, /is booting into rescue mode/);
    expect(mail.body).toMatch(/\/dev\/vdb/);
    await smtp.waitForMail(owner.email, /root password of .* was reset/);
    // Every rescue reached the webhook, without its password.
    await waitFor(
      () => Promise.resolve(receiver.received.filter((r) => r.json.type === 'instance.rescue').length),
      (n) => n >= 6,
      30_000,
    );
    const tables = [
      'activity_events',
      'webhook_deliveries',
      'webhook_delivery_attempts',
      'notifications',
      'idempotency_keys',
      'vps_rescues',
    ];
    const stored: Record<string, string> = {};
    for (const table of tables) stored[table] = JSON.stringify(await t.db.query(`SELECT * FROM ${table}`));
    stored.instance_actions = JSON.stringify(await t.db.query(`SELECT * FROM instance_actions`));
    const bodies = receiver.received.map((r) => r.body).join('\n');
    const mails = smtp.received.map((m) => m.body).join('\n');
    const log = captured.lines.join('');
    expect(log).toMatch(/instance\/rescue/);
    expect(passwords.length).toBeGreaterThanOrEqual(7);
    for (const password of passwords) {
      for (const [table, text] of Object.entries(stored))
        expect({ table, found: text.includes(password) }).toEqual({ table, found: false });
      for (const [where, text] of Object.entries({ webhooks: bodies, mails, log }))
        expect({ where, found: text.includes(password) }).toEqual({ where, found: false });
    }
  });
});

describe('VPS rescue: the per-account limit and a platform without a rescue system', () => {
  let t: TestApp;
  let owner: TestAccount;
  beforeAll(async () => {
    t = await startTestApp({ RATE_LIMIT_RESCUE_PER_HOUR: '2', RESCUE_IMAGE: 'rescue-of-this-suite' });
    owner = await createAccount(t);
  });
  afterAll(() => t.close());

  it('409 while no image has the RESCUE_IMAGE slug, not counted; then rescues begun are counted: the third is 429', async () => {
    const vps = await Promise.all([1, 2, 3].map(() => createService(t, owner.id, { powerState: 'running' })));
    const post = (id: string) => request(t.http).post(`/api/services/${id}/instance/rescue`).set('Authorization', owner.bearer).send({});
    expect((await post(vps[0].id).expect(409)).body.detail).toMatch(/no rescue system/);
    // The newest image marked --rescue is not the one RESCUE_IMAGE names.
    await createImage(t, { rescue: true });
    await post(vps[0].id).expect(409);
    await t.db.query(`UPDATE images SET slug = 'rescue-of-this-suite' WHERE id = (SELECT id FROM images ORDER BY created_at DESC LIMIT 1)`);
    await post(vps[0].id).expect(202);
    await post(vps[1].id).expect(202);
    expect((await post(vps[2].id).expect(429)).body.code).toBe('rate_limited');
  });
});
