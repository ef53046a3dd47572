import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { JobQueue } from '@app/core';
import { createAccount, TestAccount } from '../factories/accounts';
import { startAppWithAccounts, TestAppWithAccounts } from '../support/test-app';
import { waitForOrFail } from '../support/wait-for';
import { WebhookReceiver } from '../support/webhook-receiver';

/**
 * Endpoints are served independently. Endpoints held by their receiver (more than
 * the 4 job workers that each used to carry one attempt) do not hold up another endpoint, and a
 * lease whose holder died is taken over by the holder's watchdog job.
 */
describe('Webhook endpoints served at once', () => {
  const HELD_ENDPOINTS = 4;
  let t: TestAppWithAccounts;
  let held: WebhookReceiver;
  let fast: WebhookReceiver;
  beforeAll(async () => {
    held = await new WebhookReceiver().start();
    fast = await new WebhookReceiver().start();
    // 15 s an attempt (the most there is): a held answer outlasts the test's waits.
    t = await startAppWithAccounts({ WEBHOOKS_ALLOW_HTTP: 'true', WEBHOOKS_ALLOW_PRIVATE: 'true', WEBHOOKS_TIMEOUT_SECONDS: '15' });
  });
  afterAll(async () => {
    await held.stop();
    await fast.stop();
  });

  const createEndpoint = async (account: TestAccount, url: string) =>
    (
      await request(t.http)
        .post('/api/webhooks')
        .set('Authorization', account.keyBearer)
        .send({ url, events: ['webhook.test'] })
        .expect(201)
    ).body as { id: string; secret: string };
  const sendTest = async (account: TestAccount, webhookId: string) =>
    (await request(t.http).post(`/api/webhooks/${webhookId}/test`).set('Authorization', account.keyBearer).expect(202)).body as {
      id: string;
      messageId: string;
    };
  const arrived = (receiver: WebhookReceiver, messageIds: string[]) =>
    receiver.received.filter((r) => messageIds.includes(String(r.headers['webhook-id'])));

  it("delivers to an endpoint while others' receivers hold their answers, one attempt in flight per endpoint", async () => {
    const account = await createAccount(t);
    const release = held.hold();
    try {
      const heldIds: string[] = [];
      for (let i = 0; i < HELD_ENDPOINTS; i++) {
        const endpoint = await createEndpoint(account, `${held.url}/${i}`);
        heldIds.push((await sendTest(account, endpoint.id)).messageId, (await sendTest(account, endpoint.id)).messageId);
      }
      await waitForOrFail(
        async () => held.heldNow,
        (n) => n === HELD_ENDPOINTS,
        20_000,
        (n) => `${n} of the ${HELD_ENDPOINTS} held endpoints have an attempt in flight`,
      );

      const other = await createEndpoint(account, fast.url);
      const fastIds = [(await sendTest(account, other.id)).messageId, (await sendTest(account, other.id)).messageId];
      const got = await waitForOrFail(
        async () => arrived(fast, fastIds),
        (list) => list.length === fastIds.length,
        20_000,
        (list) => `${list.length} of ${fastIds.length} deliveries reached the other endpoint while the held ones waited`,
      );
      got.forEach((hook) => WebhookReceiver.verify(other.secret, hook));
      // Still held when they arrived: nothing of the held endpoints was answered, none gave up.
      expect(held.heldNow).toBe(HELD_ENDPOINTS);
      expect(arrived(held, heldIds)).toHaveLength(0);

      release();
      await waitForOrFail(
        async () => arrived(held, heldIds),
        (list) => list.length === heldIds.length,
        20_000,
        (list) => `${list.length} of ${heldIds.length} held deliveries arrived after the release`,
      );
      expect(held.maxConcurrentPerPath).toBe(1);
    } finally {
      release();
    }
  });

  it('takes over a lease whose holder died, through its watchdog job, and sends what came due meanwhile', async () => {
    const account = await createAccount(t);
    const endpoint = await createEndpoint(account, fast.url);
    // A holder that took the lease and died: nothing renews it, nothing answers pokes.
    const dead = randomUUID();
    const lease = (until: string) =>
      t.db.query(`UPDATE webhook_endpoints SET in_flight_holder = $2, in_flight_until = ${until} WHERE id = $1`, [endpoint.id, dead]);
    await lease(`now() + interval '1 hour'`);
    const sent = await sendTest(account, endpoint.id);
    await waitForOrFail(
      async () => (await t.db.query(`SELECT in_flight_poked FROM webhook_endpoints WHERE id = $1`, [endpoint.id]))[0].in_flight_poked,
      (poked) => poked === true,
      20_000,
      () => "the delivery's job did not find the lease held",
    );
    expect(arrived(fast, [sent.messageId])).toHaveLength(0); // its job has ended: the holder was to send it
    await lease(`now() - interval '1 second'`); // the dead holder's lease runs out
    await t.app.get(JobQueue).send('webhook-delivery', { endpointId: endpoint.id, watchdog: dead });
    const [hook] = await waitForOrFail(
      async () => arrived(fast, [sent.messageId]),
      (list) => list.length === 1,
      20_000,
      () => "the delivery that came due under the dead holder's lease was not sent",
    );
    WebhookReceiver.verify(endpoint.secret, hook);
    const [row] = await t.db.query(`SELECT in_flight_holder FROM webhook_endpoints WHERE id = $1`, [endpoint.id]);
    expect(row.in_flight_holder).not.toBe(dead);
  });
});
