import { createHash } from 'node:crypto';
import request from 'supertest';
import { createAccount, TestAccount } from '../factories/accounts';
import { createService } from '../factories/services';
import { startTestApp, TestApp } from '../support/test-app';

describe('Idempotency-Key', () => {
  let t: TestApp;
  let account: TestAccount;
  beforeAll(async () => {
    t = await startTestApp({ COMPUTE_TRANSITION_DELAY_MS: '60000', DOCS_ENABLED: 'true' });
    account = await createAccount(t);
  });
  afterAll(() => t.close());

  const stop = (serviceId: string, key?: string, bearer = account.keyBearer) => {
    const req = request(t.http).post(`/api/services/${serviceId}/instance/stop`).set('Authorization', bearer);
    return key ? req.set('Idempotency-Key', key) : req;
  };
  const actions = async (serviceId: string) =>
    Number((await t.db.query('SELECT count(*) AS n FROM instance_actions WHERE service_id = $1', [serviceId]))[0].n);

  it('replays the first response for a retry with the same key, without doing the work again', async () => {
    const vps = await createService(t, account.id, { powerState: 'running' });
    const first = await stop(vps.id, 'retry-1');
    expect(first.status).toBe(202);
    const again = await stop(vps.id, 'retry-1');
    expect(again.status).toBe(202);
    expect(again.body).toEqual(first.body);
    expect(again.headers.location).toBe(first.headers.location);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(await actions(vps.id)).toBe(1);
    // Without the key the same call is a new request: the VPS is stopping, so it conflicts.
    expect((await stop(vps.id)).status).toBe(409);
  });

  it('answers 422 for the same key on a different request', async () => {
    const [a, b] = [
      await createService(t, account.id, { powerState: 'running' }),
      await createService(t, account.id, { powerState: 'running' }),
    ];
    await stop(a.id, 'reused-1').expect(202);
    const res = await stop(b.id, 'reused-1');
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('idempotency_key_reused');
    expect(await actions(b.id)).toBe(0);
  });

  it('answers 409 while the first request with the key is still running', async () => {
    const vps = await createService(t, account.id, { powerState: 'running' });
    // The state a first request leaves while it runs: the key claimed for the same request, not completed.
    const hash = createHash('sha256').update(`POST /api/services/${vps.id}/instance/stop\nnull`).digest('hex');
    await t.db.query(`INSERT INTO idempotency_keys (account_id, key, request_hash) VALUES ($1, 'busy-1', $2)`, [account.id, hash]);
    const inProgress = await stop(vps.id, 'busy-1');
    expect(inProgress.status).toBe(409);
    expect(inProgress.body.code).toBe('idempotency_key_in_progress');
    expect(await actions(vps.id)).toBe(0);
  });

  it('frees the key when the request fails, so a corrected retry runs', async () => {
    const vps = await createService(t, account.id, { powerState: 'stopped' });
    expect((await stop(vps.id, 'fail-1')).status).toBe(409);
    await t.db.query(`UPDATE vps_instances SET power_state = 'running' WHERE service_id = $1`, [vps.id]);
    expect((await stop(vps.id, 'fail-1')).status).toBe(202);
  });

  it('scopes keys to the account', async () => {
    const other = await createAccount(t);
    const mine = await createService(t, account.id, { powerState: 'running' });
    const theirs = await createService(t, other.id, { powerState: 'running' });
    await stop(mine.id, 'shared-key').expect(202);
    await stop(theirs.id, 'shared-key', other.keyBearer).expect(202);
  });

  it('replays only to the API key or session that made the first request (issue 36)', async () => {
    const vps = await createService(t, account.id, { powerState: 'running' });
    const first = await stop(vps.id, 'bound-1', account.keyBearer);
    expect(first.status).toBe(202);
    const other = await stop(vps.id, 'bound-1', account.bearer);
    expect([other.status, other.body.code, other.headers['idempotent-replayed']]).toEqual([422, 'idempotency_key_reused', undefined]);
    expect(other.body.detail).toMatch(/another API key or session/);
    expect((await stop(vps.id, 'bound-1', account.keyBearer)).body).toEqual(first.body);
    expect(await actions(vps.id)).toBe(1);
  });

  it('refuses a malformed key', async () => {
    const vps = await createService(t, account.id, { powerState: 'running' });
    const res = await stop(vps.id, 'x'.repeat(256));
    expect(res.status).toBe(400);
    expect(await actions(vps.id)).toBe(0);
  });

  it('is offered on every POST a signed-in caller makes except the Auth routes and API key creation, and documented there', async () => {
    const doc = (await request(t.http).get('/openapi.json').expect(200)).body;
    const posts = Object.values(
      doc.paths as Record<
        string,
        Record<string, { operationId: string; security?: unknown[]; parameters?: { name: string; in: string }[] }>
      >,
    )
      .map((item) => item.post)
      .filter((op) => op !== undefined);
    const takesKey = (op: (typeof posts)[number]) => (op.parameters ?? []).some((p) => p.in === 'header' && p.name === 'Idempotency-Key');
    const signedIn = posts.filter((op) => op.security?.length);
    expect(
      signedIn
        .filter((op) => !takesKey(op))
        .map((op) => op.operationId)
        .sort(),
    ).toEqual([
      // Accepting twice answers invalid_token; a replay of a switch would hand out the stored tokens again.
      'acceptInvitation',
      // Idempotent by their nature: applying a firewall twice, or removing what is not applied, changes nothing.
      'applyFirewall',
      'changePassword',
      'createApiKey',
      'disableTwoFactor',
      'enableTwoFactor',
      // Replaces the zone's records by the file's: the same file twice leaves the same zone (and the same serial).
      'importDnsZone',
      'logout',
      'removeFirewall',
      // Like API key creation: a replay would have to keep the new secret (a root password, a key) in the idempotency table;
      // a rescue's answer holds the rescue system's root password.
      'rescueInstance',
      'resendVerificationEmail',
      'resetInstancePassword',
      'rotateObjectStorageCredentials',
      'setupTwoFactor',
      'switchAccount',
    ]);
    expect(posts.filter((op) => !op.security?.length && takesKey(op))).toEqual([]);
  });

  it('replays on other areas too: a ticket reply retried with its key is added once', async () => {
    const ticket = await request(t.http)
      .post('/api/support/tickets')
      .set('Authorization', account.keyBearer)
      .send({ subject: 'Replay check', message: 'First message of the ticket.' })
      .expect(200);
    const reply = () =>
      request(t.http)
        .post(`/api/support/tickets/${ticket.body.id}/reply`)
        .set('Authorization', account.keyBearer)
        .set('Idempotency-Key', 'reply-once')
        .send({ message: 'Sent twice by a flaky client.' });
    const first = await reply();
    expect(first.status).toBe(201);
    const again = await reply();
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    const [{ n }] = await t.db.query('SELECT count(*)::int AS n FROM ticket_messages WHERE ticket_id = $1', [ticket.body.id]);
    expect(n).toBe(2);
  });

  it('is not applied to API key creation: the secret is never stored, so each call makes a new key', async () => {
    const create = () =>
      request(t.http)
        .post('/api/auth/api-keys')
        .set('Authorization', account.keyBearer)
        .set('Idempotency-Key', 'key-twice')
        .send({ name: 'twice', scopes: ['read'] });
    const [a, b] = [await create().expect(201), await create().expect(201)];
    expect(a.body.key).not.toBe(b.body.key);
    expect(b.headers['idempotent-replayed']).toBeUndefined();
  });
});
