import request from 'supertest';
import { createAccount, TestAccount } from '../factories/accounts';
import { startTestApp, TestApp } from '../support/test-app';
import { waitFor } from '../support/wait-for';
import { WebhookReceiver } from '../support/webhook-receiver';

/** The production defaults: https only, no internal addresses; short retries so a refused delivery ends soon. */
describe('Webhooks SSRF defences (allow flags off)', () => {
  let t: TestApp;
  let account: TestAccount;
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    receiver = await new WebhookReceiver().start();
    t = await startTestApp({ WEBHOOKS_RETRY_BASE_SECONDS: '1', WEBHOOKS_RETRY_WINDOW_SECONDS: '6', WEBHOOKS_DISABLE_AFTER_SECONDS: '2' });
    account = await createAccount(t);
  });
  afterAll(async () => {
    await t.close();
    await receiver.stop();
  });

  const create = (url: string, owner = account) =>
    request(t.http)
      .post('/api/webhooks')
      .set('Authorization', owner.keyBearer)
      .send({ url, events: ['webhook.test'] });
  const lastDelivery = (id: string, owner = account) =>
    request(t.http).get(`/api/webhooks/${id}/deliveries`).set('Authorization', owner.keyBearer);
  const testAndWait = async (id: string, owner = account) => {
    await request(t.http).post(`/api/webhooks/${id}/test`).set('Authorization', owner.keyBearer).expect(202);
    return waitFor(
      async () => (await lastDelivery(id, owner)).body.data[0],
      (d) => d.attempts >= 1 && d.lastError !== null,
      // Queued behind retries that earlier suites left in the shared job queue, on a busy machine.
      30_000,
    );
  };
  const CLASSES: [string, string][] = [
    ['127.0.0.1', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.5.4', 'private'],
    ['192.168.0.1', 'private'],
    ['169.254.169.254', 'link-local'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['224.0.0.1', 'multicast'],
    ['0.0.0.0', 'this-network'],
    ['[::1]', 'loopback'],
    ['[::]', 'unspecified'],
    ['[fc00::1]', 'unique-local'],
    ['[fe80::1]', 'link-local'],
    ['[fec0::1]', 'site-local'],
    ['[ff02::1]', 'multicast'],
    ['[::ffff:127.0.0.1]', 'loopback'],
    ['[::ffff:169.254.169.254]', 'link-local'],
    // IPv4-compatible (deprecated), NAT64, 6to4 and Teredo forms of internal addresses.
    ['[::127.0.0.1]', 'loopback'],
    ['[0:0:0:0:0:0:7f00:1]', 'loopback'],
    ['[64:ff9b::a9fe:a9fe]', 'link-local'],
    ['[64:ff9b:1::a00:1]', 'local-use IPv4/IPv6 translation'],
    ['[2002:a00:1::1]', 'private'],
    ['[2001:0:7f00:1:8000:63bf:f7f7:f7f7]', 'loopback'],
  ];

  it('refuses http URLs', async () => {
    const res = await create(receiver.url);
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ field: 'url', message: 'must use https' }]);
  });

  it.each(CLASSES)('refuses a URL on %s (%s) at creation and on PATCH', async (host, range) => {
    const res = await create(`https://${host}/hook`);
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ field: 'url', message: `may not point at a non-public address (${range})` }]);
    const ok = await create('https://hooks.example.com/').expect(201);
    const patch = await request(t.http)
      .patch(`/api/webhooks/${ok.body.id}`)
      .set('Authorization', account.keyBearer)
      .send({ url: `https://${host}/` });
    expect(patch.status).toBe(400);
    await request(t.http).delete(`/api/webhooks/${ok.body.id}`).set('Authorization', account.keyBearer).expect(204);
  });

  it('checks the address again at send time: every internal class is refused without a connection', async () => {
    const ok = await create('https://hooks.example.com/').expect(201);
    for (const [host] of CLASSES) {
      // As if stored while the flags were on, or by an older release.
      await t.db.query('UPDATE webhook_endpoints SET url = $2, failing_since = NULL, enabled = true WHERE id = $1', [
        ok.body.id,
        `https://${host}/hook`,
      ]);
      // Earlier deliveries' retries end here, so they cannot disable the endpoint mid-loop.
      await t.db.query(`UPDATE webhook_deliveries SET status = 'failed' WHERE endpoint_id = $1`, [ok.body.id]);
      const delivery = await testAndWait(ok.body.id);
      expect([host, delivery.lastError]).toEqual([host, 'refused: the address is not allowed']);
      expect(delivery.lastResponseCode).toBeNull();
    }
    await request(t.http).delete(`/api/webhooks/${ok.body.id}`).set('Authorization', account.keyBearer).expect(204);
  });

  it('refuses a host name that resolves to loopback without saying what it resolves to', async () => {
    const owner = await createAccount(t);
    const port = new URL(receiver.url).port;
    const res = await create(`https://localhost:${port}/hooks`, owner).expect(201);
    const delivery = await testAndWait(res.body.id, owner);
    expect(delivery.lastError).toBe('refused: the address is not allowed');
    expect(receiver.received).toHaveLength(0);
    const attempts = await request(t.http)
      .get(`/api/webhooks/${res.body.id}/deliveries/${delivery.id}/attempts`)
      .set('Authorization', owner.keyBearer)
      .expect(200);
    expect(attempts.body.data[0]).toMatchObject({
      attempt: 1,
      result: 'refused',
      responseCode: null,
      error: 'refused: the address is not allowed',
      responseHeaders: null,
      responseBody: null,
    });
    // Nowhere in what the customer can read: the deliveries and their attempts, the endpoint, the
    // details of the account's activity (whose `ip` is the test client's own, on loopback).
    const seen = JSON.stringify([
      (await lastDelivery(res.body.id, owner).expect(200)).body,
      attempts.body,
      (await request(t.http).get(`/api/webhooks/${res.body.id}`).set('Authorization', owner.keyBearer).expect(200)).body,
      (await request(t.http).get('/api/events').set('Authorization', owner.keyBearer).expect(200)).body.data.map(
        (e: { details: object }) => e.details,
      ),
    ]);
    expect(seen).toContain(`localhost:${port}`);
    expect(seen).not.toMatch(/127\.0\.0\.1|::1\b|loopback/);
  });

  it('disables an endpoint that keeps failing, tells the customer, and records it as the system', async () => {
    const owner = await createAccount(t);
    const res = await request(t.http)
      .post('/api/webhooks')
      .set('Authorization', owner.keyBearer)
      .send({ url: 'https://localhost/hooks', events: ['webhook.test'] })
      .expect(201);
    await request(t.http).post(`/api/webhooks/${res.body.id}/test`).set('Authorization', owner.keyBearer).expect(202);
    const endpoint = await waitFor(
      async () => (await request(t.http).get(`/api/webhooks/${res.body.id}`).set('Authorization', owner.keyBearer)).body,
      (e) => e.enabled === false,
      15_000,
    );
    expect(endpoint).toMatchObject({ enabled: false, failingSince: expect.any(String) });
    const notifications = await waitFor(
      async () => (await request(t.http).get('/api/notifications').set('Authorization', owner.keyBearer)).body.data,
      (list: { type: string }[]) => list.some((n) => n.type === 'webhook_disabled'),
    );
    expect(notifications.find((n: { type: string }) => n.type === 'webhook_disabled')).toMatchObject({
      severity: 'warning',
      link: `/api/webhooks/${res.body.id}`,
      entity: { type: 'webhook', id: res.body.id },
    });
    const events = await request(t.http).get('/api/events?action=webhook.disable').set('Authorization', owner.keyBearer).expect(200);
    expect(events.body.data[0]).toMatchObject({ entity: { type: 'webhook', id: res.body.id }, actor: { type: 'system' } });
    // Enabling it again clears the streak.
    const enabled = await request(t.http)
      .patch(`/api/webhooks/${res.body.id}`)
      .set('Authorization', owner.keyBearer)
      .send({ enabled: true })
      .expect(200);
    expect(enabled.body).toMatchObject({ enabled: true, failingSince: null });
  });
});
