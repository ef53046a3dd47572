import { generateKeyPairSync, randomUUID } from 'node:crypto';
import sshpk from 'sshpk';
import request from 'supertest';
import { confirmEmailInDatabase } from '../support/confirm-email';
import { ServerProcess, startServerProcess } from '../support/server-process';
import { TEST_DATABASE_URL } from '../support/test-env';
import { waitFor } from '../support/wait-for';
import { WebhookReceiver } from '../support/webhook-receiver';

const FLAGS = { WEBHOOKS_ALLOW_HTTP: 'true', WEBHOOKS_ALLOW_PRIVATE: 'true' };
const freshKey = () => {
  const { publicKey } = generateKeyPairSync('ed25519');
  return sshpk.parseKey(publicKey.export({ type: 'spki', format: 'pem' }), 'pem').toString('ssh');
};

async function register(server: ServerProcess): Promise<string> {
  const email = `hooks-${randomUUID()}@example.test`;
  const res = await request(server.url)
    .post('/api/auth/register')
    .send({ email, password: 'correct horse battery staple', name: 'Hooks' })
    .expect(201);
  await confirmEmailInDatabase(TEST_DATABASE_URL!, email); // unconfirmed accounts may not add webhooks
  return `Bearer ${res.body.accessToken}`;
}

async function endpointFor(server: ServerProcess, bearer: string, url: string): Promise<{ id: string; secret: string }> {
  return (
    await request(server.url)
      .post('/api/webhooks')
      .set('Authorization', bearer)
      .send({ url, events: ['ssh_key.create'] })
      .expect(201)
  ).body;
}

interface Delivery {
  id: string;
  messageId: string;
  eventType: string;
  status: string;
  attempts: number;
  lastError: string | null;
}

const addKey = (server: ServerProcess, bearer: string) =>
  request(server.url).post('/api/ssh-keys').set('Authorization', bearer).send({ name: 'k', publicKey: freshKey() }).expect(201);

// Several API processes share one database only on PostgreSQL.
(TEST_DATABASE_URL ? describe : describe.skip)('Webhook deliveries across API processes (PostgreSQL)', () => {
  const servers: ServerProcess[] = [];
  const receiver = new WebhookReceiver();
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.stop()));
    await receiver.stop();
  });

  it('two processes on one database send each delivery once', async () => {
    await receiver.start();
    receiver.respond = () => 200;
    const [a, b] = await Promise.all([startServerProcess(FLAGS), startServerProcess(FLAGS)]);
    servers.push(a, b);
    const bearer = await register(a);
    const endpoint = await endpointFor(a, bearer, receiver.url);
    const keys = await Promise.all(Array.from({ length: 12 }, (_, i) => addKey(i % 2 ? a : b, bearer)));
    const got = await waitFor(
      async () => receiver.of('ssh_key.create'),
      (list) => list.length >= keys.length,
      30_000,
    );
    await new Promise((resolve) => setTimeout(resolve, 2000)); // time for a duplicate to show up
    const ids = receiver.of('ssh_key.create').map((r) => r.headers['webhook-id']);
    expect(ids).toHaveLength(keys.length);
    expect(new Set(ids).size).toBe(keys.length);
    expect(new Set(got.map((r) => r.json.data.entity.id))).toEqual(new Set(keys.map((k) => k.body.id)));
    got.forEach((hook) => WebhookReceiver.verify(endpoint.secret, hook));
  });

  it('a delivery whose receiver is down survives a restart of the API and is delivered after it', async () => {
    await receiver.start();
    const receiverUrl = receiver.url;
    await receiver.stop(); // down: connections refused
    const env = { ...FLAGS, WEBHOOKS_RETRY_BASE_SECONDS: '3' };
    const first = await startServerProcess(env);
    servers.push(first);
    const bearer = await register(first);
    const endpoint = await endpointFor(first, bearer, receiverUrl);
    const key = await addKey(first, bearer);
    const failed = await waitFor(
      async () => (await request(first.url).get(`/api/webhooks/${endpoint.id}/deliveries`).set('Authorization', bearer)).body.data,
      (list: Delivery[]) => list.some((d) => d.eventType === 'ssh_key.create' && d.lastError !== null),
      15_000,
    );
    const delivery = (failed as Delivery[]).find((d) => d.eventType === 'ssh_key.create')!;
    expect(delivery).toMatchObject({ status: 'pending', lastError: expect.stringContaining('ECONNREFUSED') });
    await first.stop();
    servers.splice(0);
    await receiver.start();
    const second = await startServerProcess(env);
    servers.push(second);
    const [hook] = await waitFor(
      async () => receiver.received.filter((r) => r.headers['webhook-id'] === delivery.messageId),
      (list) => list.length >= 1,
      30_000,
    );
    expect(hook.json.data.entity.id).toBe(key.body.id);
    WebhookReceiver.verify(endpoint.secret, hook);
    const done = await waitFor(
      async () => (await request(second.url).get(`/api/webhooks/${endpoint.id}/deliveries`).set('Authorization', bearer)).body.data,
      (list: Delivery[]) => list.some((d) => d.id === delivery.id && d.status === 'succeeded'),
    );
    expect((done as Delivery[]).find((d) => d.id === delivery.id)!.attempts).toBeGreaterThanOrEqual(2);
  });
});
