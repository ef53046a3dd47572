import request from 'supertest';
import { confirmEmailInDatabase } from '../support/confirm-email';
import { ServerProcess, startServerProcess } from '../support/server-process';
import { openSse } from '../support/sse';
import { admin, FAULTS_URL } from './cluster';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

async function register(url: string) {
  const email = `proc-${Date.now()}-${Math.random().toString(36).slice(2)}@example.test`;
  const res = await request(url).post('/api/auth/register').send({ email, password: 'long enough pw', name: 'P' }).expect(201);
  await confirmEmailInDatabase(FAULTS_URL, email); // unconfirmed accounts may not create API keys
  return res.body.accessToken as string;
}

describe('Two API processes on one database', () => {
  let a: ServerProcess;
  let b: ServerProcess;
  beforeAll(async () => {
    const env = { DATABASE_URL: FAULTS_URL, REDIS_URL, RATE_LIMIT_PER_MINUTE: '6' };
    a = await startServerProcess(env);
    b = await startServerProcess(env);
  });
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
  });

  it('refuses on one process a key revoked through the other, on the next request', async () => {
    const token = await register(a.url);
    const key = await request(a.url).post('/api/auth/api-keys').set('Authorization', `Bearer ${token}`).send({ name: 'k' }).expect(201);
    await request(b.url).get('/api/auth/me').set('Authorization', `Bearer ${key.body.key}`).expect(200);
    await request(a.url).delete(`/api/auth/api-keys/${key.body.id}`).set('Authorization', `Bearer ${token}`).expect(204);
    await request(b.url).get('/api/auth/me').set('Authorization', `Bearer ${key.body.key}`).expect(401);
  });

  it('delivers a notification made by one process to an event stream held by the other', async () => {
    const token = await register(a.url);
    const { port } = new URL(a.url);
    const stream = await openSse(
      { address: () => ({ port: Number(port), address: '127.0.0.1', family: 'IPv4' }) },
      '/api/notifications/stream',
      `Bearer ${token}`,
    );
    try {
      await stream.next('unread-count');
      await request(b.url).post('/api/auth/api-keys').set('Authorization', `Bearer ${token}`).send({ name: 'made on B' }).expect(201);
      let pushed = await stream.next('notification', 8000);
      while (pushed.data.title !== 'API key "made on B" created') pushed = await stream.next('notification', 8000);
      expect(pushed.data).toMatchObject({ type: 'api_key_created' });
    } finally {
      stream.close();
    }
  });

  it('shares rate limits through Redis', async () => {
    const token = await register(a.url);
    const key = await request(a.url).post('/api/auth/api-keys').set('Authorization', `Bearer ${token}`).send({ name: 'k' }).expect(201);
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) {
      const target = i % 2 ? b.url : a.url;
      statuses.push((await request(target).get('/api/auth/me').set('Authorization', `Bearer ${key.body.key}`)).status);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 429]);
  });
});

describe('SIGTERM', () => {
  it('drains in-flight requests, refuses new ones, then exits cleanly', async () => {
    const server = await startServerProcess({ DATABASE_URL: FAULTS_URL, DB_STATEMENT_TIMEOUT_MS: '10000' });
    const token = await register(server.url);
    const db = await admin();
    try {
      await db.query('BEGIN');
      await db.query('LOCK TABLE accounts IN ACCESS EXCLUSIVE MODE');
      const inFlight = request(server.url)
        .get('/api/auth/me')
        .set('Authorization', `Bearer ${token}`)
        .then((r) => r.status);
      await new Promise((r) => setTimeout(r, 300));
      const exit = server.stop('SIGTERM');
      await new Promise((r) => setTimeout(r, 300));
      await expect(request(server.url).get('/health/live')).rejects.toThrow();
      await db.query('ROLLBACK');
      expect(await inFlight).toBe(200);
      expect(await exit).toBe(0);
    } finally {
      await db.query('ROLLBACK').catch(() => undefined);
      await db.end();
      await server.stop('SIGKILL');
    }
  });
});
