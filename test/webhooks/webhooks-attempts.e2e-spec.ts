import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { DeliveriesRetentionJob } from '@app/webhooks';
import { createAccount, TestAccount } from '../factories/accounts';
import { startAppWithAccounts, TestAppWithAccounts } from '../support/test-app';
import { waitFor } from '../support/wait-for';
import { WebhookReceiver } from '../support/webhook-receiver';

/** Every attempt of a delivery is kept and listed, not only the last one. */
describe('Webhook delivery attempts', () => {
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

  const get = (path: string, account: TestAccount) => request(t.http).get(path).set('Authorization', account.keyBearer);
  const createEndpoint = async (account: TestAccount, url = receiver.url) =>
    (
      await request(t.http)
        .post('/api/webhooks')
        .set('Authorization', account.keyBearer)
        .send({ url, events: ['webhook.test'] })
        .expect(201)
    ).body as { id: string };
  const sendTest = async (account: TestAccount, webhookId: string) =>
    (await request(t.http).post(`/api/webhooks/${webhookId}/test`).set('Authorization', account.keyBearer).expect(202)).body as {
      id: string;
      messageId: string;
    };
  const attemptsPath = (webhookId: string, deliveryId: string) => `/api/webhooks/${webhookId}/deliveries/${deliveryId}/attempts`;
  /** The delivery as its owner lists it, once it has made `n` attempts and recorded the last. */
  const deliveryAfter = (account: TestAccount, webhookId: string, deliveryId: string, n: number, timeoutMs = 20_000) =>
    waitFor(
      async () =>
        ((await get(`/api/webhooks/${webhookId}/deliveries`, account).expect(200)).body.data as any[]).find((d) => d.id === deliveryId),
      (d) => d?.attempts >= n && (d.status !== 'pending' || d.nextAttemptAt !== null),
      timeoutMs,
    );

  it('keeps the connection to an endpoint for its next attempts, and sends again at once on a new one when the kept one was closed', async () => {
    const account = await createAccount(t);
    const endpoint = await createEndpoint(account, `${receiver.url}/kept-${randomUUID()}`);
    const before = receiver.connections;
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const sent = await sendTest(account, endpoint.id);
      ids.push(sent.id);
      expect(await deliveryAfter(account, endpoint.id, sent.id, 1)).toMatchObject({ status: 'succeeded', attempts: 1 });
    }
    expect(receiver.connections - before).toBe(1);

    // The receiver drops the kept connection as the next attempt comes on it: no failed attempt, no wait for a retry.
    receiver.dropNextReused = true;
    const sent = await sendTest(account, endpoint.id);
    expect(await deliveryAfter(account, endpoint.id, sent.id, 1)).toMatchObject({ status: 'succeeded', attempts: 1 });
    expect(receiver.dropNextReused).toBe(false);
    expect(receiver.connections - before).toBe(2);
    const attempts = (await get(attemptsPath(endpoint.id, sent.id), account).expect(200)).body.data;
    expect(attempts).toEqual([expect.objectContaining({ result: 'succeeded' })]);
  });

  it('lists a 500 and the retry that succeeded, newest first, with status, headers, the body and the duration', async () => {
    const account = await createAccount(t);
    const endpoint = await createEndpoint(account);
    const longBody = 'ok '.repeat(5000); // 15,000 bytes: more than the 4 KiB kept
    const answers = [
      { status: 500, headers: { 'content-type': 'application/json', 'x-receiver-trace': 'trace-500' }, body: '{"error":"database down"}' },
      { status: 200, headers: { 'content-type': 'text/plain; charset=utf-8', 'x-receiver-trace': 'trace-200' }, body: longBody },
    ];
    receiver.respond = () => answers.shift() ?? 204;
    try {
      const delivery = await sendTest(account, endpoint.id);
      const done = await deliveryAfter(account, endpoint.id, delivery.id, 2);
      expect(done).toMatchObject({ status: 'succeeded', attempts: 2, lastResponseCode: 200, lastError: null });

      const list = await get(attemptsPath(endpoint.id, delivery.id), account).expect(200);
      expect(list.body).toMatchObject({ page: 1, pageSize: 10, total: 2, totalPages: 1 });
      const [second, first] = list.body.data;
      expect(first).toEqual({
        id: expect.any(String),
        deliveryId: delivery.id,
        attempt: 1,
        result: 'http_error',
        responseCode: 500,
        durationMs: expect.any(Number),
        error: 'HTTP 500: {"error":"database down"}',
        responseHeaders: expect.objectContaining({ 'content-type': 'application/json', 'x-receiver-trace': 'trace-500' }),
        responseHeadersTruncated: false,
        responseBody: '{"error":"database down"}',
        responseBodyEncoding: 'utf8',
        responseBodyTruncated: false,
        attemptedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      });
      expect(second).toMatchObject({
        deliveryId: delivery.id,
        attempt: 2,
        result: 'succeeded',
        responseCode: 200,
        error: null,
        responseHeaders: expect.objectContaining({ 'content-type': 'text/plain; charset=utf-8', 'x-receiver-trace': 'trace-200' }),
        responseBody: longBody.slice(0, 4096),
        responseBodyEncoding: 'utf8',
        responseBodyTruncated: true,
      });
      for (const attempt of [first, second]) expect(attempt.durationMs).toBeGreaterThanOrEqual(0);
      expect(Date.parse(second.attemptedAt)).toBeGreaterThan(Date.parse(first.attemptedAt));
      // The receiver saw the same two requests (the retry came after the 500).
      expect(receiver.received.filter((r) => r.headers['webhook-id'] === delivery.messageId).map((r) => r.answered)).toEqual([500, 200]);

      const page2 = await get(`${attemptsPath(endpoint.id, delivery.id)}?page=2&pageSize=1`, account).expect(200);
      expect(page2.body).toMatchObject({ page: 2, pageSize: 1, total: 2, totalPages: 2 });
      expect(page2.body.data.map((a: { id: string }) => a.id)).toEqual([first.id]);
      for (const bad of ['pageSize=0', 'pageSize=101', 'page=abc']) {
        const res = await get(`${attemptsPath(endpoint.id, delivery.id)}?${bad}`, account);
        expect([bad, res.status, res.body.code]).toEqual([bad, 400, 'invalid_input']);
      }
    } finally {
      receiver.respond = undefined;
    }
  });

  it('shows a body that is not text in base64 (and a 500 with one still records its attempt)', async () => {
    const account = await createAccount(t);
    const endpoint = await createEndpoint(account);
    const bytes = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0xff, 0xfe]);
    const answers = [{ status: 500, headers: { 'content-type': 'image/png' }, body: bytes }];
    receiver.respond = () => answers.shift() ?? 204;
    try {
      const delivery = await sendTest(account, endpoint.id);
      const failed = await deliveryAfter(account, endpoint.id, delivery.id, 1);
      expect(failed).toMatchObject({ status: 'pending', lastResponseCode: 500, lastError: expect.stringContaining('PNG') });
      const [attempt] = (await get(attemptsPath(endpoint.id, delivery.id), account).expect(200)).body.data;
      expect(attempt).toMatchObject({
        attempt: 1,
        result: 'http_error',
        responseBody: bytes.toString('base64'),
        responseBodyEncoding: 'base64',
        responseBodyTruncated: false,
      });
      expect(Buffer.from(attempt.responseBody, 'base64')).toEqual(bytes);
    } finally {
      receiver.respond = undefined;
    }
  });

  it('keeps an attempt that got no answer: a closed receiver (an error, no status) and a silent one (a timeout)', async () => {
    const account = await createAccount(t);
    const closed = await new WebhookReceiver().start();
    const closedUrl = closed.url;
    await closed.stop();
    const silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const refused = await createEndpoint(account, closedUrl);
      const hung = await createEndpoint(account, `http://127.0.0.1:${(silent.address() as AddressInfo).port}/hooks`);
      const toClosed = await sendTest(account, refused.id);
      const toSilent = await sendTest(account, hung.id);

      await deliveryAfter(account, refused.id, toClosed.id, 1);
      const [networkError] = (await get(attemptsPath(refused.id, toClosed.id), account).expect(200)).body.data;
      expect(networkError).toMatchObject({
        attempt: 1,
        result: 'network_error',
        responseCode: null,
        error: 'connect ECONNREFUSED',
        responseHeaders: null,
        responseHeadersTruncated: false,
        responseBody: null,
        responseBodyEncoding: null,
        responseBodyTruncated: false,
      });

      await deliveryAfter(account, hung.id, toSilent.id, 1, 30_000);
      const [timeout] = (await get(attemptsPath(hung.id, toSilent.id), account).expect(200)).body.data;
      expect(timeout).toMatchObject({
        attempt: 1,
        result: 'timeout',
        responseCode: null,
        error: 'no complete answer within 3 s',
        responseBody: null,
      });
      expect(timeout.durationMs).toBeGreaterThanOrEqual(3_000);
    } finally {
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it('keeps deliveries and their attempts as long as the activity log keeps entries (EVENTS_RETENTION_DAYS)', async () => {
    const account = await createAccount(t);
    const endpoint = await createEndpoint(account);
    const old = await sendTest(account, endpoint.id);
    const recent = await sendTest(account, endpoint.id);
    await deliveryAfter(account, endpoint.id, old.id, 1);
    await deliveryAfter(account, endpoint.id, recent.id, 1);
    const days = t.config.eventsRetentionDays;
    await t.db.query(
      `UPDATE webhook_deliveries SET created_at = created_at - make_interval(days => $2), last_attempt_at = last_attempt_at - make_interval(days => $2)
       WHERE id = $1`,
      [old.id, days + 1],
    );
    // Queued long ago but redelivered within the window: kept.
    await t.db.query(`UPDATE webhook_deliveries SET created_at = created_at - make_interval(days => $2) WHERE id = $1`, [
      recent.id,
      days + 1,
    ]);
    expect(await t.app.get(DeliveriesRetentionJob).purge()).toBeGreaterThanOrEqual(1);
    const listed = (await get(`/api/webhooks/${endpoint.id}/deliveries`, account).expect(200)).body.data.map((d: { id: string }) => d.id);
    expect(listed).toEqual([recent.id]);
    await get(attemptsPath(endpoint.id, old.id), account).expect(404);
    expect(await t.db.query('SELECT 1 FROM webhook_delivery_attempts WHERE delivery_id = $1', [old.id])).toEqual([]);
    expect((await get(attemptsPath(endpoint.id, recent.id), account).expect(200)).body.total).toBe(1);
  });

  describe('access', () => {
    let webhookId: string;
    let deliveryId: string;
    beforeAll(async () => {
      webhookId = (await createEndpoint(owner)).id;
      deliveryId = (await sendTest(owner, webhookId)).id;
      await deliveryAfter(owner, webhookId, deliveryId, 1);
    });

    it("answers 404 for another account's webhook or delivery, and for a delivery of another endpoint", async () => {
      const strangers = await createEndpoint(stranger);
      const ownersOther = await createEndpoint(owner);
      for (const [account, path] of [
        [stranger, attemptsPath(webhookId, deliveryId)],
        [stranger, attemptsPath(strangers.id, deliveryId)],
        [owner, attemptsPath(ownersOther.id, deliveryId)],
        [owner, attemptsPath(webhookId, randomUUID())],
        [owner, attemptsPath(randomUUID(), deliveryId)],
      ] as const) {
        const res = await get(path, account);
        expect([path, res.status, res.body.code]).toEqual([path, 404, 'not_found']);
      }
      expect((await get(attemptsPath(webhookId, deliveryId), owner).expect(200)).body.total).toBe(1);
    });

    it('answers 401 without a token, 400 for a malformed id, and lets a read-only key read', async () => {
      await request(t.http).get(attemptsPath(webhookId, deliveryId)).expect(401);
      const bad = await get(attemptsPath(webhookId, 'not-a-uuid'), owner).expect(400);
      expect(bad.body.code).toBe('invalid_input');
      const ro = await request(t.http)
        .post('/api/auth/api-keys')
        .set('Authorization', owner.bearer)
        .send({ name: 'ro', scopes: ['read'] })
        .expect(201);
      const res = await request(t.http).get(attemptsPath(webhookId, deliveryId)).set('Authorization', `Bearer ${ro.body.key}`).expect(200);
      expect(res.body.data).toHaveLength(1);
    });

    it('goes with its delivery: deleting the webhook deletes its deliveries and their attempts', async () => {
      const before = await t.db.query('SELECT count(*)::int AS n FROM webhook_delivery_attempts WHERE delivery_id = $1', [deliveryId]);
      expect(before[0].n).toBe(1);
      await request(t.http).delete(`/api/webhooks/${webhookId}`).set('Authorization', owner.keyBearer).expect(204);
      await get(attemptsPath(webhookId, deliveryId), owner).expect(404);
      const after = await t.db.query('SELECT count(*)::int AS n FROM webhook_delivery_attempts WHERE delivery_id = $1', [deliveryId]);
      expect(after[0].n).toBe(0);
    });
  });
});
