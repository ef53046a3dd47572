import request from 'supertest';
import { ApiKeyVerifier } from '@app/api-keys';
import { createAccount, TestAccount } from '../factories/accounts';
import { startAppWithAccounts, TestAppWithAccounts } from '../support/test-app';

describe('API keys', () => {
  let t: TestAppWithAccounts;
  let owner: TestAccount;
  let stranger: TestAccount;
  beforeAll(async () => {
    ({ owner, stranger } = t = await startAppWithAccounts());
  });

  const create = (bearer: string, body: object) => request(t.http).post('/api/auth/api-keys').set('Authorization', bearer).send(body);

  describe('POST /api/auth/api-keys', () => {
    it('creates a key, shows the secret once, stores only its SHA-256', async () => {
      const res = await create(owner.bearer, { name: 'ci' });
      expect(res.status).toBe(201);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.body).toEqual({
        id: expect.any(String),
        name: 'ci',
        prefix: res.body.key.slice(0, 12),
        scopes: ['read', 'write'],
        createdAt: expect.any(String),
        expiresAt: null,
        lastUsedAt: null,
        key: expect.stringMatching(/^hpk_[0-9A-Za-z]{38}$/),
      });
      const [row] = await t.db.query('SELECT * FROM api_keys WHERE id = $1', [res.body.id]);
      expect(JSON.stringify(row)).not.toContain(res.body.key);
      expect(row.key_hash).toMatch(/^[0-9a-f]{64}$/);
      const got = await request(t.http).get(`/api/auth/api-keys/${res.body.id}`).set('Authorization', owner.bearer);
      expect(got.body.key).toBeUndefined();
      await request(t.http).get('/api/auth/me').set('Authorization', `Bearer ${res.body.key}`).expect(200);
    });

    it('works with a write API key', async () => {
      const res = await create(owner.keyBearer, { name: 'from key', scopes: ['read'] });
      expect(res.status).toBe(201);
    });

    it.each([
      [{}, 'name'],
      [{ name: '' }, 'name'],
      [{ name: 'x'.repeat(101) }, 'name'],
      [{ name: 'k', scopes: ['admin'] }, 'scopes'],
      [{ name: 'k', scopes: [] }, 'scopes'],
      [{ name: 'k', scopes: 'read' }, 'scopes'],
      [{ name: 'k', expiresAt: 'tomorrow' }, 'expiresAt'],
      [{ name: 'k', expiresAt: '2001-01-01T00:00:00Z' }, 'expiresAt'],
      [{ name: 'k', id: 'chosen' }, 'id'],
    ])('answers 400 for %j', async (body, field) => {
      const res = await create(owner.bearer, body);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('invalid_input');
      expect(JSON.stringify(res.body.errors ?? res.body.detail)).toContain(field);
    });

    it('answers 401 without a token', async () => {
      await request(t.http).post('/api/auth/api-keys').send({ name: 'x' }).expect(401);
    });

    // Whoever registers someone else's address gets no lasting access before it is confirmed.
    it('refuses an account whose email nobody confirmed (403 email_unverified), then allows it once confirmed', async () => {
      const address = `keys-${Math.random().toString(36).slice(2)}@example.test`;
      const registered = await request(t.http)
        .post('/api/auth/register')
        .send({ email: address, password: 'long enough pw', name: 'Early' })
        .expect(201);
      const bearer = `Bearer ${registered.body.accessToken}`;
      const refused = await create(bearer, { name: 'too early' });
      expect(refused.status).toBe(403);
      expect(refused.body).toMatchObject({ code: 'email_unverified', detail: expect.stringContaining('Confirm the account') });
      expect((await request(t.http).get('/api/auth/api-keys').set('Authorization', bearer).expect(200)).body.total).toBe(0);
      await t.db.query('UPDATE accounts SET email_verified_at = now() WHERE id = $1', [registered.body.account.id]);
      expect((await create(bearer, { name: 'in time' })).status).toBe(201);
    });

    it('refuses a read-only key (403 insufficient_scope)', async () => {
      const readOnly = await create(owner.bearer, { name: 'ro', scopes: ['read'] });
      const res = await create(`Bearer ${readOnly.body.key}`, { name: 'escalate' });
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('insufficient_scope');
      expect(res.headers['www-authenticate']).toContain('insufficient_scope');
    });

    it('never lets a key mint a key that outlives it', async () => {
      const soon = new Date(Date.now() + 3600_000).toISOString();
      const later = new Date(Date.now() + 7200_000).toISOString();
      const short = await create(owner.bearer, { name: 'short', expiresAt: soon });
      expect(short.status).toBe(201);
      expect(short.body.expiresAt).toBe(soon);
      const bearer = `Bearer ${short.body.key}`;
      expect((await create(bearer, { name: 'forever' })).status).toBe(403);
      expect((await create(bearer, { name: 'later', expiresAt: later })).status).toBe(403);
      expect((await create(bearer, { name: 'ok', expiresAt: soon })).status).toBe(201);
    });

    it('caps an account at 100 live keys (409 quota_exceeded)', async () => {
      const account = await createAccount(t);
      await t.db.query(
        `INSERT INTO api_keys (account_id, name, prefix, key_hash, scopes)
         SELECT $1, 'bulk', 'hpk_bulk', md5(random()::text) || md5(random()::text), ARRAY['read'] FROM generate_series(1, 99)`,
        [account.id],
      );
      const res = await create(account.bearer, { name: 'one too many' });
      expect(res.status).toBe(409);
      expect(res.body.code).toBe('quota_exceeded');
    });
  });

  describe('GET /api/auth/api-keys', () => {
    it("lists live keys newest first, paginated, never another account's", async () => {
      const account = await createAccount(t);
      for (const name of ['a', 'b', 'c']) await create(account.bearer, { name });
      const revoked = await create(account.bearer, { name: 'gone' });
      await request(t.http).delete(`/api/auth/api-keys/${revoked.body.id}`).set('Authorization', account.bearer).expect(204);

      const page1 = await request(t.http).get('/api/auth/api-keys?pageSize=2').set('Authorization', account.keyBearer);
      expect(page1.status).toBe(200);
      expect(page1.body).toMatchObject({ page: 1, pageSize: 2, total: 4, totalPages: 2 });
      expect(page1.body.data.map((k: { name: string }) => k.name)).toEqual(['c', 'b']);
      const page2 = await request(t.http).get('/api/auth/api-keys?page=2&pageSize=2').set('Authorization', account.bearer);
      expect(page2.body.data.map((k: { name: string }) => k.name)).toEqual(['a', 'test key']);
      expect(JSON.stringify([page1.body, page2.body])).not.toContain('"key"');
    });

    it.each([
      'page=0',
      'page=-1',
      'page=1.5',
      'page=1e2',
      'page=abc',
      'page=',
      'page=1&page=2',
      'pageSize=0',
      'pageSize=101',
      'pageSize=10.5',
      'pageSize=',
      'pageSize=+5',
      'sort=name',
    ])('answers 400 for ?%s', async (query) => {
      const res = await request(t.http).get(`/api/auth/api-keys?${query}`).set('Authorization', owner.bearer);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('invalid_input');
    });

    it('accepts the limits', async () => {
      const res = await request(t.http).get('/api/auth/api-keys?page=999999&pageSize=100').set('Authorization', owner.bearer);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ data: [], page: 999999, pageSize: 100 });
    });

    it('answers 401 without a token', async () => {
      await request(t.http).get('/api/auth/api-keys').expect(401);
    });
  });

  describe('GET /api/auth/api-keys/{id}', () => {
    it('returns the key with an access token and with an API key', async () => {
      for (const bearer of [owner.bearer, owner.keyBearer]) {
        const res = await request(t.http).get(`/api/auth/api-keys/${owner.apiKeyId}`).set('Authorization', bearer);
        expect(res.status).toBe(200);
        expect(res.body.id).toBe(owner.apiKeyId);
      }
    });

    it("answers 404 for another account's key, the same as for an unknown id", async () => {
      const foreign = await request(t.http).get(`/api/auth/api-keys/${stranger.apiKeyId}`).set('Authorization', owner.bearer);
      const unknown = await request(t.http)
        .get('/api/auth/api-keys/6b0c8c3e-0000-4000-8000-000000000000')
        .set('Authorization', owner.bearer);
      expect(foreign.status).toBe(404);
      expect(unknown.status).toBe(404);
      expect({ ...foreign.body, requestId: 0 }).toEqual({ ...unknown.body, requestId: 0 });
    });

    it('answers 400 for a malformed id and 401 without a token', async () => {
      await request(t.http).get('/api/auth/api-keys/not-a-uuid').set('Authorization', owner.bearer).expect(400);
      await request(t.http).get(`/api/auth/api-keys/${owner.apiKeyId}`).expect(401);
    });
  });

  describe('DELETE /api/auth/api-keys/{id}', () => {
    it('revokes a key: refused on the very next request, gone from the API, second DELETE 404', async () => {
      const key = await create(owner.bearer, { name: 'to revoke' });
      const bearer = `Bearer ${key.body.key}`;
      await request(t.http).get('/api/auth/me').set('Authorization', bearer).expect(200);
      await request(t.http).delete(`/api/auth/api-keys/${key.body.id}`).set('Authorization', owner.keyBearer).expect(204);
      await request(t.http).get('/api/auth/me').set('Authorization', bearer).expect(401);
      await request(t.http).get(`/api/auth/api-keys/${key.body.id}`).set('Authorization', owner.bearer).expect(404);
      await request(t.http).delete(`/api/auth/api-keys/${key.body.id}`).set('Authorization', owner.bearer).expect(404);
    });

    it('lets a key revoke itself', async () => {
      const key = await create(owner.bearer, { name: 'self' });
      await request(t.http).delete(`/api/auth/api-keys/${key.body.id}`).set('Authorization', `Bearer ${key.body.key}`).expect(204);
      await request(t.http).get('/api/auth/me').set('Authorization', `Bearer ${key.body.key}`).expect(401);
    });

    it("answers 404 for another account's key and leaves it working", async () => {
      await request(t.http).delete(`/api/auth/api-keys/${stranger.apiKeyId}`).set('Authorization', owner.bearer).expect(404);
      await request(t.http).get('/api/auth/me').set('Authorization', stranger.keyBearer).expect(200);
    });

    it('answers 403 for a read-only key, 400 for a bad id, 401 without a token', async () => {
      const ro = await create(owner.bearer, { name: 'ro', scopes: ['read'] });
      await request(t.http).delete(`/api/auth/api-keys/${owner.apiKeyId}`).set('Authorization', `Bearer ${ro.body.key}`).expect(403);
      await request(t.http).delete('/api/auth/api-keys/123').set('Authorization', owner.bearer).expect(400);
      await request(t.http).delete(`/api/auth/api-keys/${owner.apiKeyId}`).expect(401);
    });
  });

  describe('expiry, scopes and lastUsedAt', () => {
    it('refuses an expired key on the next request', async () => {
      const key = await create(owner.bearer, { name: 'expiring', expiresAt: new Date(Date.now() + 60_000).toISOString() });
      const bearer = `Bearer ${key.body.key}`;
      await request(t.http).get('/api/auth/me').set('Authorization', bearer).expect(200);
      await t.db.query(`UPDATE api_keys SET expires_at = now() - interval '1 second' WHERE id = $1`, [key.body.id]);
      await request(t.http).get('/api/auth/me').set('Authorization', bearer).expect(401);
    });

    it('lets a read-only key read but not write', async () => {
      const ro = await create(owner.bearer, { name: 'reader', scopes: ['read'] });
      const bearer = `Bearer ${ro.body.key}`;
      await request(t.http).get('/api/auth/me').set('Authorization', bearer).expect(200);
      const res = await request(t.http).post('/api/auth/logout').set('Authorization', bearer);
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('insufficient_scope');
    });

    it('records lastUsedAt off the request path', async () => {
      const key = await create(owner.bearer, { name: 'used' });
      await request(t.http).get('/api/auth/me').set('Authorization', `Bearer ${key.body.key}`).expect(200);
      await t.app.get(ApiKeyVerifier).flush();
      const res = await request(t.http).get(`/api/auth/api-keys/${key.body.id}`).set('Authorization', owner.bearer);
      expect(Date.parse(res.body.lastUsedAt)).toBeGreaterThan(Date.now() - 60_000);
    });
  });
});
