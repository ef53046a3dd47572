import request from 'supertest';
import { createAccount, TestAccount } from '../factories/accounts';
import { ServerProcess, startServerProcess } from '../support/server-process';
import { startTestApp, TestApp } from '../support/test-app';
import { TEST_DATABASE_URL } from '../support/test-env';

/**
 * Each API process remembers the credentials it verified; a revocation on one replica
 * must still be refused by another on the very next request. Two server processes on one
 * PostgreSQL database (the embedded database is one process, and remembers nothing).
 */
(TEST_DATABASE_URL ? describe : describe.skip)('Remembered credentials across API processes (PostgreSQL)', () => {
  let t: TestApp;
  let a: ServerProcess;
  let b: ServerProcess;
  let owner: TestAccount;

  beforeAll(async () => {
    t = await startTestApp();
    [a, b] = await Promise.all([startServerProcess({}), startServerProcess({})]);
    owner = await createAccount(t);
  });
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await t?.close();
  });

  const me = (server: ServerProcess, bearer: string) => request(server.url).get('/api/auth/me').set('Authorization', bearer);
  const newKey = async () => {
    const res = await request(a.url)
      .post('/api/auth/api-keys')
      .set('Authorization', owner.bearer)
      .send({ name: 'replica test' })
      .expect(201);
    return { id: res.body.id as string, bearer: `Bearer ${res.body.key}` };
  };

  it('remembers a verified key: a change the database does not announce goes unseen until it is announced', async () => {
    const key = await newKey();
    await me(b, key.bearer).expect(200);
    await t.db.query('ALTER TABLE api_keys DISABLE TRIGGER api_keys_changed');
    try {
      await t.db.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1', [key.id]);
    } finally {
      await t.db.query('ALTER TABLE api_keys ENABLE TRIGGER api_keys_changed');
    }
    // B verified the key before and was not told: it still takes it (A never saw it, and looks it up).
    await me(b, key.bearer).expect(200);
    await me(a, key.bearer).expect(401);
    await t.db.query(`SELECT pg_notify('credential_changes', $1)`, [owner.id]);
    await waitUntilRefused(b, key.bearer);
  });

  it('refuses a key revoked on one replica on the very next request to the other, every time', async () => {
    for (let i = 0; i < 20; i++) {
      const key = await newKey();
      await me(b, key.bearer).expect(200);
      await me(b, key.bearer).expect(200);
      await request(a.url).delete(`/api/auth/api-keys/${key.id}`).set('Authorization', owner.bearer).expect(204);
      await me(b, key.bearer).expect(401);
    }
  });

  it('refuses an access token on the other replica as soon as its session is logged out on one', async () => {
    const login = await request(a.url).post('/api/auth/login').send({ email: owner.email, password: owner.password }).expect(200);
    const bearer = `Bearer ${login.body.accessToken}`;
    await me(b, bearer).expect(200);
    await me(b, bearer).expect(200);
    await request(a.url).post('/api/auth/logout').set('Authorization', bearer).send({}).expect(204);
    await me(b, bearer).expect(401);
  });

  it('refuses every credential of an account on the other replica once the account is deleted', async () => {
    const other = await createAccount(t);
    await me(b, other.keyBearer).expect(200);
    await me(b, other.bearer).expect(200);
    await t.db.query('DELETE FROM accounts WHERE id = $1', [other.id]);
    await me(b, other.keyBearer).expect(401);
    await me(b, other.bearer).expect(401);
  });
});

/** The notice is asynchronous when sent by hand (not in a request's transaction): wait for it. */
async function waitUntilRefused(server: ServerProcess, bearer: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if ((await request(server.url).get('/api/auth/me').set('Authorization', bearer)).status === 401) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('the remembered key was never dropped');
}
