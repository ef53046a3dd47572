import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import sshpk from 'sshpk';
import request from 'supertest';
import { JobQueue } from '@app/core';
import { DeliveriesRetentionJob } from '@app/webhooks';
import { DeliveryOutbox } from '../../libs/webhooks/src/delivery/delivery-outbox';
import { createAccount, TestAccount } from '../factories/accounts';
import { startAppWithAccounts, TestAppWithAccounts } from '../support/test-app';
import { waitFor, waitForOrFail } from '../support/wait-for';
import { ReceivedWebhook, WebhookReceiver } from '../support/webhook-receiver';

/** Endpoints that must exist but never receive: nothing listens on port 9 of loopback, so attempts end at once. */
const NOWHERE = 'https://127.0.0.1:9/';
const freshKey = () => {
  const { publicKey } = generateKeyPairSync('ed25519');
  return sshpk.parseKey(publicKey.export({ type: 'spki', format: 'pem' }), 'pem').toString('ssh');
};

describe('Webhooks', () => {
  let t: TestAppWithAccounts;
  let owner: TestAccount;
  let stranger: TestAccount;
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    receiver = await new WebhookReceiver().start();
    ({ owner, stranger } = t = await startAppWithAccounts({
      WEBHOOKS_ALLOW_HTTP: 'true',
      WEBHOOKS_ALLOW_PRIVATE: 'true',
      WEBHOOKS_RETRY_BASE_SECONDS: '1',
      WEBHOOKS_TIMEOUT_SECONDS: '3',
    }));
  });
  afterAll(() => receiver.stop());

  const api = (account: TestAccount, bearer = account.keyBearer) => ({
    post: (path: string, body?: object) => request(t.http).post(path).set('Authorization', bearer).send(body),
    patch: (path: string, body: object) => request(t.http).patch(path).set('Authorization', bearer).send(body),
    get: (path: string) => request(t.http).get(path).set('Authorization', bearer),
    delete: (path: string) => request(t.http).delete(path).set('Authorization', bearer),
  });
  const createEndpoint = async (account: TestAccount, events: string[] = ['*'], url = receiver.url) => {
    const res = await api(account).post('/api/webhooks', { url, events });
    expect(res.status).toBe(201);
    return res.body as { id: string; secret: string };
  };
  /** The endpoint's newest delivery, as its owner reads it. */
  const latestDelivery = async (account: TestAccount, endpointId: string) =>
    (await api(account).get(`/api/webhooks/${endpointId}/deliveries`)).body.data[0];
  /** Waits for the deliveries the receiver got that `match`, at least `count` of them. */
  const received = async (match: (r: ReceivedWebhook) => boolean, count = 1, timeoutMs = 15_000) =>
    (
      await waitFor(
        async () => receiver.received.filter(match),
        (list) => list.length >= count,
        timeoutMs,
      )
    ).filter(match);
  const forEntity = (id: string) => (r: ReceivedWebhook) => r.json.data.entity?.id === id;

  describe('endpoints', () => {
    it('replays a creation and a rotation only to the credential that made them, and keeps no secret in clear (issue 36)', async () => {
      const account = await createAccount(t);
      const withKey = (bearer: string, path: string, key: string, body?: object) =>
        request(t.http).post(path).set('Authorization', bearer).set('Idempotency-Key', key).send(body);
      const created = await withKey(account.keyBearer, '/api/webhooks', 'create-1', { url: receiver.url, events: ['*'] });
      expect(created.status).toBe(201);
      const rotated = await withKey(account.keyBearer, `/api/webhooks/${created.body.id}/rotate-secret`, 'rotate-1');
      expect(rotated.status).toBe(200);
      const replayed = await withKey(account.keyBearer, '/api/webhooks', 'create-1', { url: receiver.url, events: ['*'] });
      expect([replayed.status, replayed.headers['idempotent-replayed'], replayed.body.secret]).toEqual([201, 'true', created.body.secret]);
      for (const [path, key, body] of [
        ['/api/webhooks', 'create-1', { url: receiver.url, events: ['*'] }],
        [`/api/webhooks/${created.body.id}/rotate-secret`, 'rotate-1', undefined],
      ] as const) {
        const other = await withKey(account.bearer, path, key, body);
        expect([other.status, other.body.code]).toEqual([422, 'idempotency_key_reused']);
        expect(JSON.stringify(other.body)).not.toContain('whsec_');
      }
      const rows = await t.db.query(`SELECT * FROM idempotency_keys WHERE account_id = $1`, [account.id]);
      expect(rows).toHaveLength(2);
      const stored = JSON.stringify(rows);
      for (const secret of [created.body.secret, rotated.body.secret]) {
        expect(stored).not.toContain(secret);
        expect(stored).not.toContain(secret.slice(6));
      }
      expect((await api(account).get('/api/webhooks')).body.total).toBe(1);
    });

    it('creates an endpoint with a secret shown once, then reads, lists, changes and deletes it', async () => {
      const account = await createAccount(t);
      const created = await api(account).post('/api/webhooks', {
        url: receiver.url,
        events: ['ssh_key.create', 'ticket.reply'],
        description: 'CI',
      });
      expect(created.status).toBe(201);
      expect(created.body).toEqual({
        id: expect.any(String),
        url: receiver.url,
        description: 'CI',
        events: ['ssh_key.create', 'ticket.reply'],
        enabled: true,
        failingSince: null,
        previousSecretExpiresAt: null,
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
        secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
      });
      const id = created.body.id;
      const got = await api(account).get(`/api/webhooks/${id}`).expect(200);
      expect(got.body.secret).toBeUndefined();
      const [row] = await t.db.query('SELECT secret_sealed FROM webhook_endpoints WHERE id = $1', [id]);
      expect(row.secret_sealed).not.toContain(created.body.secret.slice(6, 20));
      expect((await api(account).get('/api/webhooks').expect(200)).body).toMatchObject({ data: [{ id }], total: 1, page: 1 });
      const patched = await api(account)
        .patch(`/api/webhooks/${id}`, { events: ['*'], enabled: false, description: '' })
        .expect(200);
      expect(patched.body).toMatchObject({ events: ['*'], enabled: false, description: null });
      await api(account).delete(`/api/webhooks/${id}`).expect(204);
      await api(account).get(`/api/webhooks/${id}`).expect(404);
      await api(account).delete(`/api/webhooks/${id}`).expect(404);
    });

    it.each([
      ['an unknown event type', { url: 'https://hooks.example.com/', events: ['ssh_key.explode'] }],
      ['no events', { url: 'https://hooks.example.com/', events: [] }],
      ['events not a list', { url: 'https://hooks.example.com/', events: 'ssh_key.create' }],
      ['no url', { events: ['*'] }],
      ['a relative url', { url: '/hooks', events: ['*'] }],
      ['a url with credentials', { url: 'https://user:pw@hooks.example.com/', events: ['*'] }],
      ['an ftp url', { url: 'ftp://hooks.example.com/', events: ['*'] }],
      ['a url over 2048 characters', { url: `https://hooks.example.com/${'a'.repeat(2050)}`, events: ['*'] }],
      ['an unknown field', { url: 'https://hooks.example.com/', events: ['*'], secret: 'mine' }],
    ])('refuses %s with 400', async (_name, body) => {
      const res = await api(owner).post('/api/webhooks', body);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('invalid_input');
    });

    it('refuses an unknown event type, nulls and a malformed URL on PATCH', async () => {
      const account = await createAccount(t);
      const { id } = await createEndpoint(account);
      for (const body of [
        { events: ['nope'] },
        { events: null },
        { url: null },
        { enabled: null },
        { enabled: 'yes' },
        { url: 'http://[::1' },
      ]) {
        const res = await api(account).patch(`/api/webhooks/${id}`, body);
        expect([body, res.status]).toEqual([body, 400]);
      }
    });

    // An account whose address nobody confirmed may not listen to its events.
    it('refuses an account whose email nobody confirmed (403 email_unverified)', async () => {
      const early = await createAccount(t, { verified: false });
      for (const bearer of [early.bearer, early.keyBearer]) {
        const res = await api(early, bearer).post('/api/webhooks', { url: receiver.url, events: ['*'] });
        expect(res.status).toBe(403);
        expect(res.body.code).toBe('email_unverified');
      }
      expect((await api(early).get('/api/webhooks')).body.total).toBe(0);
    });

    it('allows at most 10 endpoints per account (409 quota_exceeded)', async () => {
      const account = await createAccount(t);
      await Promise.all(
        Array.from({ length: 10 }, () =>
          api(account)
            .post('/api/webhooks', { url: NOWHERE, events: ['*'] })
            .expect(201),
        ),
      );
      const res = await api(account).post('/api/webhooks', { url: NOWHERE, events: ['*'] });
      expect(res.status).toBe(409);
      expect(res.body.code).toBe('quota_exceeded');
    });
  });

  describe('access', () => {
    let id: string;
    let deliveryId: string;
    beforeAll(async () => {
      ({ id } = await createEndpoint(owner, ['webhook.test']));
      deliveryId = (await api(owner).post(`/api/webhooks/${id}/test`).expect(202)).body.id;
    });
    const routes = (): [string, string, object?][] => [
      ['get', `/api/webhooks/${id}`],
      ['patch', `/api/webhooks/${id}`, { description: 'x' }],
      ['delete', `/api/webhooks/${id}`],
      ['post', `/api/webhooks/${id}/rotate-secret`],
      ['post', `/api/webhooks/${id}/test`],
      ['get', `/api/webhooks/${id}/deliveries`],
      ['post', `/api/webhooks/${id}/deliveries/${deliveryId}/redeliver`],
    ];

    it("answers 404 for another account's endpoint on every route, and changes nothing", async () => {
      for (const [method, path, body] of routes()) {
        const res = await (request(t.http) as any)[method](path).set('Authorization', stranger.keyBearer).send(body);
        expect([method, path, res.status, res.body.code]).toEqual([method, path, 404, 'not_found']);
      }
      expect((await api(stranger).get('/api/webhooks').expect(200)).body.total).toBe(0);
      await api(owner).get(`/api/webhooks/${id}`).expect(200);
      const other = await createEndpoint(stranger, ['*'], NOWHERE);
      await api(owner).post(`/api/webhooks/${id}/deliveries/${randomUUID()}/redeliver`).expect(404);
      await api(stranger).post(`/api/webhooks/${other.id}/deliveries/${deliveryId}/redeliver`).expect(404);
    });

    it('answers 401 without a token on every route', async () => {
      for (const [method, path] of [...routes(), ['get', '/api/webhooks'], ['post', '/api/webhooks']] as [string, string][]) {
        const res = await (request(t.http) as any)[method](path);
        expect([method, path, res.status]).toEqual([method, path, 401]);
      }
    });

    it('lets a read-only key read but not change (403 insufficient_scope)', async () => {
      const ro = await request(t.http)
        .post('/api/auth/api-keys')
        .set('Authorization', owner.bearer)
        .send({ name: 'ro', scopes: ['read'] })
        .expect(201);
      const bearer = `Bearer ${ro.body.key}`;
      await request(t.http).get('/api/webhooks').set('Authorization', bearer).expect(200);
      await request(t.http).get(`/api/webhooks/${id}/deliveries`).set('Authorization', bearer).expect(200);
      for (const [method, path, body] of [
        ...routes().filter(([m]) => m !== 'get'),
        ['post', '/api/webhooks', { url: receiver.url, events: ['*'] }],
      ] as [string, string, object?][]) {
        const res = await (request(t.http) as any)[method](path).set('Authorization', bearer).send(body);
        expect([method, path, res.status, res.body.code]).toEqual([method, path, 403, 'insufficient_scope']);
      }
    });
  });

  describe('deliveries', () => {
    it('delivers the events an endpoint subscribes to, signed, with the Standard Webhooks headers', async () => {
      const account = await createAccount(t);
      const endpoint = await createEndpoint(account, ['ssh_key.create', 'ticket.create']);
      const key = await api(account).post('/api/ssh-keys', { name: 'laptop', publicKey: freshKey() }).expect(201);
      const ticket = await api(account).post('/api/support/tickets', { subject: 'Hello', message: 'Webhooks?' }).expect(200);
      await api(account).patch(`/api/ssh-keys/${key.body.id}`, { name: 'renamed' }).expect(200); // not subscribed
      const [sshHook] = await received(forEntity(key.body.id));
      const [ticketHook] = await received(forEntity(ticket.body.id));
      for (const [hook, type] of [
        [sshHook, 'ssh_key.create'],
        [ticketHook, 'ticket.create'],
      ] as const) {
        expect(WebhookReceiver.verify(endpoint.secret, hook)).toEqual(hook.json);
        expect(hook.headers).toMatchObject({
          'content-type': 'application/json',
          'webhook-id': expect.stringMatching(/^msg_[0-9a-f]{32}$/),
          'webhook-timestamp': expect.stringMatching(/^\d{10}$/),
          'webhook-signature': expect.stringMatching(/^v1,[A-Za-z0-9+/]{43}=$/),
          'user-agent': expect.stringContaining('HostingAccount-Webhooks'),
        });
        expect(Math.abs(Number(hook.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(30);
        expect(hook.json).toMatchObject({
          type,
          timestamp: expect.any(String),
          data: { id: expect.any(String), status: 'succeeded', createdAt: hook.json.timestamp },
        });
      }
      expect(sshHook.json.data).toMatchObject({
        entity: { type: 'ssh_key', id: key.body.id },
        actor: { type: 'api_key', id: account.apiKeyId },
      });
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect(receiver.received.filter((r) => r.json.type === 'ssh_key.update' && r.json.data.entity?.id === key.body.id)).toHaveLength(0);
      const list = await api(account).get(`/api/webhooks/${endpoint.id}/deliveries`).expect(200);
      expect(list.body.total).toBe(2);
      expect(list.body.data[0]).toEqual({
        id: expect.any(String),
        webhookId: endpoint.id,
        messageId: expect.stringMatching(/^msg_/),
        eventType: 'ticket.create',
        status: 'succeeded',
        attempts: 1,
        lastResponseCode: 204,
        lastDurationMs: expect.any(Number),
        lastError: null,
        nextAttemptAt: null,
        createdAt: expect.any(String),
      });
    });

    it('delivers nothing for a change that rolled back, nor to a disabled endpoint', async () => {
      const account = await createAccount(t);
      const endpoint = await createEndpoint(account, ['ssh_key.create']);
      const publicKey = freshKey();
      await api(account).post('/api/ssh-keys', { name: 'one', publicKey }).expect(201);
      await api(account).post('/api/ssh-keys', { name: 'dup', publicKey }).expect(409); // rolled back
      await api(account).patch(`/api/webhooks/${endpoint.id}`, { enabled: false }).expect(200);
      await api(account).post('/api/ssh-keys', { name: 'two', publicKey: freshKey() }).expect(201);
      await new Promise((resolve) => setTimeout(resolve, 2000));
      const [{ n }] = await t.db.query('SELECT count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id = $1', [endpoint.id]);
      expect(n).toBe(1);
    });

    it('retries after a 500 with the same webhook-id, and redelivers under it again', async () => {
      const account = await createAccount(t);
      const endpoint = await createEndpoint(account, ['webhook.test']);
      receiver.responses.push(500);
      const test = await api(account).post(`/api/webhooks/${endpoint.id}/test`).expect(202);
      expect(test.body).toMatchObject({ eventType: 'webhook.test', status: 'pending', attempts: 0 });
      const isOurs = (r: ReceivedWebhook) => r.headers['webhook-id'] === test.body.messageId;
      const hooks = await received(isOurs, 2);
      expect(hooks.map((h) => h.answered)).toEqual([500, 204]);
      expect(hooks[0].body).toBe(hooks[1].body);
      hooks.forEach((hook) => WebhookReceiver.verify(endpoint.secret, hook));
      const done = await waitFor(
        () => latestDelivery(account, endpoint.id),
        (d) => d.status === 'succeeded',
      );
      expect(done).toMatchObject({ attempts: 2, lastResponseCode: 204, lastError: null });
      const again = await api(account).post(`/api/webhooks/${endpoint.id}/deliveries/${test.body.id}/redeliver`).expect(202);
      expect(again.body).toMatchObject({ id: test.body.id, messageId: test.body.messageId, status: 'pending' });
      expect(await received(isOurs, 3)).toHaveLength(3);
    });

    it('reads at most 64 KiB of an answer (an endless 2xx body is a success) and gives up on silence after WEBHOOKS_TIMEOUT_SECONDS', async () => {
      const account = await createAccount(t);
      const chunk = Buffer.alloc(16 * 1024, 'x');
      let endlessClosedAfter = 0;
      const endless = createServer((req, res) => {
        res.writeHead(200, { 'content-type': 'text/plain' });
        let sent = 0;
        const pump = () => {
          for (let more = true; more && !res.destroyed; sent += chunk.length) more = res.write(chunk);
          if (!res.destroyed) res.once('drain', pump);
        };
        res.on('close', () => (endlessClosedAfter = sent));
        req.resume().on('end', pump);
      });
      const silent = createServer(() => undefined);
      const made: string[] = [];
      const listen = async (server: Server) => {
        await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
        return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
      };
      try {
        const [endlessUrl, silentUrl] = [await listen(endless), await listen(silent)];
        const capped = await createEndpoint(account, ['webhook.test'], endlessUrl);
        const hung = await createEndpoint(account, ['webhook.test'], silentUrl);
        made.push(capped.id, hung.id);
        await api(account).post(`/api/webhooks/${capped.id}/test`).expect(202);
        await api(account).post(`/api/webhooks/${hung.id}/test`).expect(202);
        const ok = await waitFor(
          () => latestDelivery(account, capped.id),
          (d) => d.attempts >= 1 && d.lastResponseCode !== null,
          15_000,
        );
        expect(ok).toMatchObject({ status: 'succeeded', attempts: 1, lastResponseCode: 200, lastError: null });
        // The API hung up once it had read its fill; the receiver had written at least that much.
        expect(
          await waitFor(
            async () => endlessClosedAfter,
            (n) => n > 0,
            5_000,
          ),
        ).toBeGreaterThanOrEqual(64 * 1024);
        const timedOut = await waitFor(
          () => latestDelivery(account, hung.id),
          (d) => d.attempts >= 1 && d.lastError !== null,
          30_000,
        );
        expect(timedOut).toMatchObject({ status: 'pending', lastResponseCode: null, lastError: 'no complete answer within 3 s' });
        expect(timedOut.lastDurationMs).toBeGreaterThanOrEqual(3_000);
        expect(timedOut.nextAttemptAt).not.toBeNull();
      } finally {
        for (const id of made) await api(account).delete(`/api/webhooks/${id}`).expect(204);
        endless.closeAllConnections();
        silent.closeAllConnections();
        await Promise.all([endless, silent].map((server) => new Promise((resolve) => server.close(resolve))));
      }
    });

    it('does not follow a redirect: a 3xx is a failed attempt', async () => {
      const account = await createAccount(t);
      const endpoint = await createEndpoint(account, ['webhook.test']);
      receiver.respond = () => ({ status: 302, headers: { location: 'http://169.254.169.254/latest/meta-data' } });
      try {
        await api(account).post(`/api/webhooks/${endpoint.id}/test`).expect(202);
        const failed = await waitFor(
          () => latestDelivery(account, endpoint.id),
          (d) => d.attempts >= 1 && d.lastResponseCode !== null,
          // Queued behind the retries of the suite's earlier failures, on a busy machine (the whole suite).
          30_000,
        );
        expect(failed).toMatchObject({
          status: 'pending',
          lastResponseCode: 302,
          lastError: expect.stringContaining('redirects are not followed'),
        });
        expect(failed.nextAttemptAt).not.toBeNull();
      } finally {
        receiver.respond = undefined;
        await api(account).delete(`/api/webhooks/${endpoint.id}`).expect(204);
      }
    });

    it('signs with both secrets for a day after a rotation', async () => {
      const account = await createAccount(t);
      const endpoint = await createEndpoint(account, ['webhook.test']);
      const rotated = await api(account).post(`/api/webhooks/${endpoint.id}/rotate-secret`).expect(200);
      expect(rotated.body.secret).not.toBe(endpoint.secret);
      const overlapHours = (Date.parse(rotated.body.previousSecretExpiresAt) - Date.now()) / 3_600_000;
      expect(overlapHours).toBeGreaterThan(23.9);
      expect(overlapHours).toBeLessThanOrEqual(24);
      const test = await api(account).post(`/api/webhooks/${endpoint.id}/test`).expect(202);
      const [hook] = await received((r) => r.headers['webhook-id'] === test.body.messageId);
      expect(String(hook.headers['webhook-signature']).split(' ')).toHaveLength(2);
      WebhookReceiver.verify(rotated.body.secret, hook);
      WebhookReceiver.verify(endpoint.secret, hook);
      // After the overlap only the new secret signs.
      await t.db.query(`UPDATE webhook_endpoints SET previous_secret_expires_at = now() - interval '1 second' WHERE id = $1`, [
        endpoint.id,
      ]);
      const later = await api(account).post(`/api/webhooks/${endpoint.id}/test`).expect(202);
      const [next] = await received((r) => r.headers['webhook-id'] === later.body.messageId);
      expect(String(next.headers['webhook-signature']).split(' ')).toHaveLength(1);
      WebhookReceiver.verify(rotated.body.secret, next);
      expect(() => WebhookReceiver.verify(endpoint.secret, next)).toThrow();
    });

    it('keeps one attempt in flight per endpoint, while a slow endpoint does not hold up the others', async () => {
      const slow = await new WebhookReceiver().start();
      slow.delayMs = 1500;
      try {
        const account = await createAccount(t);
        const slowEndpoint = await createEndpoint(account, ['ssh_key.create'], slow.url);
        const fastEndpoint = await createEndpoint(account, ['ssh_key.create']);
        const keys: string[] = [];
        for (let i = 0; i < 3; i++)
          keys.push(
            (
              await api(account)
                .post('/api/ssh-keys', { name: `k${i}`, publicKey: freshKey() })
                .expect(201)
            ).body.id,
          );
        const fastGot = await received((r) => keys.includes(r.json.data.entity?.id), 3);
        const slowGot = await waitFor(
          async () => slow.received.filter((r) => keys.includes(r.json.data.entity?.id)),
          (list) => list.length >= 3,
          20_000,
        );
        expect(slowGot).toHaveLength(3);
        expect(slow.maxConcurrent).toBe(1);
        // One at a time: each slow request arrived after the one before had been answered.
        const slowAt = slowGot.map((r) => r.at).sort((a, b) => a - b);
        expect(slowAt[1] - slowAt[0]).toBeGreaterThanOrEqual(1500);
        expect(slowAt[2] - slowAt[1]).toBeGreaterThanOrEqual(1500);
        // The fast endpoint had all three before the slow one got its last.
        expect(Math.max(...fastGot.map((r) => r.at))).toBeLessThan(slowAt[2]);
        slowGot.forEach((hook) => WebhookReceiver.verify(slowEndpoint.secret, hook));
        expect(fastEndpoint.id).not.toBe(slowEndpoint.id);
      } finally {
        await slow.stop();
      }
    });

    it('sends a burst once each, behind one waiting job, and records a failure in its midst after the successes before it', async () => {
      const account = await createAccount(t);
      const endpoint = await createEndpoint(account, ['ticket.reply']);
      const BURST = 90;
      const entityIds = Array.from({ length: BURST }, () => randomUUID());
      // The fan-out's own outbox, in one transaction, as a burst of events committed together.
      await t.db.transaction(async (manager) => {
        for (const [n, id] of entityIds.entries()) {
          await t.app.get(DeliveryOutbox).enqueue(manager, endpoint.id, {
            id: randomUUID(),
            accountId: account.id,
            action: 'ticket.reply',
            entity: { type: 'ticket', id },
            actor: { type: 'system', id: null, name: null, memberId: null, email: null, keyId: null },
            ip: null,
            userAgent: null,
            requestId: null,
            status: 'succeeded',
            details: { n },
            createdAt: new Date(),
          });
        }
        const jobs = await manager.query(`SELECT count(*)::int AS n FROM pgboss.job WHERE singleton_key = $1`, [`endpoint:${endpoint.id}`]);
        expect(jobs[0].n).toBe(1);
      });
      const failing = entityIds[60];
      let failed = false;
      receiver.respond = (body) => {
        if (failed || !body.includes(failing)) return 204;
        failed = true;
        return 500;
      };
      try {
        t.app.get(JobQueue).wake('webhook-delivery');
        const got = await received((r) => entityIds.includes(r.json.data.entity?.id), BURST + 1, 30_000);
        expect(got).toHaveLength(BURST + 1);
        // Each once, but the failed one, which came again after its retry delay.
        expect(new Set(got.map((r) => r.json.data.entity.id)).size).toBe(BURST);
        expect(got.filter((r) => r.json.data.entity.id === failing)).toHaveLength(2);
      } finally {
        receiver.respond = undefined;
      }
      const rows = await waitFor(
        () =>
          t.db.query(
            `SELECT status, attempts, count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id = $1 GROUP BY status, attempts ORDER BY attempts`,
            [endpoint.id],
          ),
        (list: { status: string; attempts: number; n: number }[]) => list.every((r) => r.status === 'succeeded'),
        15_000,
      );
      expect(rows).toEqual([
        { status: 'succeeded', attempts: 1, n: BURST - 1 },
        { status: 'succeeded', attempts: 2, n: 1 },
      ]);
      const attempts = await t.db.query(
        `SELECT count(*)::int AS n FROM webhook_delivery_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id WHERE d.endpoint_id = $1`,
        [endpoint.id],
      );
      expect(attempts[0].n).toBe(BURST + 1);
    });

    it('sends again an attempt whose process died before recording it, when pg-boss retries that job', async () => {
      const account = await createAccount(t);
      const endpoint = await createEndpoint(account, ['webhook.test']);
      receiver.respond = () => 503; // keep the first series from succeeding before the crash is staged
      let test = { id: '', messageId: '' };
      try {
        test = (await api(account).post(`/api/webhooks/${endpoint.id}/test`).expect(202)).body;
        await received((r) => r.headers['webhook-id'] === test.messageId);
        // The 503 is recorded after the receiver has answered: staged before that, it would be overwritten.
        await waitForOrFail(
          () => latestDelivery(account, endpoint.id),
          (d) => d?.lastResponseCode === 503,
          10_000,
          (d) => `the first attempt's 503 was not recorded: ${JSON.stringify(d)}`,
        );
      } finally {
        receiver.respond = undefined;
      }
      // The state a process leaves when it dies mid-attempt: claimed, no outcome, no next attempt
      // (attempt 5, so the retry already scheduled, which expects 1, stands aside).
      await t.db.query(
        `UPDATE webhook_deliveries SET status = 'pending', attempts = 5, next_attempt_at = NULL, last_attempt_at = now() - interval '1 minute' WHERE id = $1`,
        [test.id],
      );
      await t.app.get(JobQueue).send('webhook-delivery', { deliveryId: test.id, attempt: 4 });
      const done = await waitFor(
        () => latestDelivery(account, endpoint.id),
        (d) => d.status === 'succeeded',
        15_000,
      );
      expect(done).toMatchObject({ id: test.id, attempts: 5, lastResponseCode: 204 });
    });

    it("keeps each endpoint's deliveries total right through fan-out, the retention purge and the endpoint's deletion (trigger-kept counter)", async () => {
      const account = await createAccount(t);
      const a = await createEndpoint(account, ['ssh_key.create']);
      const b = await createEndpoint(account, ['ssh_key.create']);
      /** The list's total, checked against the endpoint's deliveries counted from the rows. */
      const total = async (endpointId: string) => {
        const listed = (await api(account).get(`/api/webhooks/${endpointId}/deliveries`).expect(200)).body.total;
        const [{ n }] = await t.db.query('SELECT count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id = $1', [endpointId]);
        expect(listed).toBe(n);
        return listed;
      };
      expect([await total(a.id), await total(b.id)]).toEqual([0, 0]);
      await api(account).post('/api/ssh-keys', { name: 'one', publicKey: freshKey() }).expect(201);
      await api(account).post('/api/ssh-keys', { name: 'two', publicKey: freshKey() }).expect(201);
      await api(account).post(`/api/webhooks/${a.id}/test`).expect(202);
      expect([await total(a.id), await total(b.id)]).toEqual([3, 2]);
      // Finished long ago, several endpoints in one statement: the purge's to take.
      await t.db.query(
        `INSERT INTO webhook_deliveries (endpoint_id, message_id, event_type, body, status, attempts, last_attempt_at, retry_until, created_at)
         SELECT CASE WHEN i <= 5 THEN $1::uuid ELSE $2::uuid END, 'msg_old_' || i, 'ssh_key.create', '{}', 'succeeded', 1,
                now() - make_interval(days => $3), now() - make_interval(days => $3), now() - make_interval(days => $3)
           FROM generate_series(1, 6) i`,
        [a.id, b.id, t.config.eventsRetentionDays + 1],
      );
      expect([await total(a.id), await total(b.id)]).toEqual([8, 3]);
      expect(await t.app.get(DeliveriesRetentionJob).purge()).toBeGreaterThanOrEqual(6);
      expect([await total(a.id), await total(b.id)]).toEqual([3, 2]);
      // The endpoint's deletion takes its deliveries and its counter, and leaves the other's.
      await api(account).delete(`/api/webhooks/${a.id}`).expect(204);
      expect(await t.db.query('SELECT count(*)::int AS n FROM webhook_delivery_counts WHERE endpoint_id = $1', [a.id])).toEqual([{ n: 0 }]);
      expect(await total(b.id)).toBe(2);
    });

    it('refuses a test delivery to a disabled endpoint (409 invalid_state)', async () => {
      const account = await createAccount(t);
      const endpoint = await createEndpoint(account, ['*']);
      await api(account).patch(`/api/webhooks/${endpoint.id}`, { enabled: false }).expect(200);
      const res = await api(account).post(`/api/webhooks/${endpoint.id}/test`);
      expect(res.status).toBe(409);
      expect(res.body.code).toBe('invalid_state');
    });
  });
});
