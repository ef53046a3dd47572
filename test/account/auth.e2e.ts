import request from 'supertest';
import { PasswordHasher } from '../../libs/accounts/src/password-hasher';
import { AppConfig } from '@app/core';
import { createAccount } from '../factories/accounts';
import { runCliIn } from '../support/run-cli-in-app';
import { sharedTestApp, TestApp } from '../support/test-app';

describe('Auth', () => {
  let t: TestApp;
  beforeAll(async () => (t = await sharedTestApp()));

  const storedHash = async (id: string): Promise<string> =>
    (await t.db.query('SELECT password_hash FROM accounts WHERE id = $1', [id]))[0].password_hash;
  const email = () => `reg-${Math.random().toString(36).slice(2)}@example.test`;

  describe('POST /api/auth/register', () => {
    it('creates an account and returns a token pair (201, no-store)', async () => {
      const address = email();
      const res = await request(t.http)
        .post('/api/auth/register')
        .send({ email: address.toUpperCase(), password: 'long enough pw', name: ' Ada ' });
      expect(res.status).toBe(201);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.body.account).toEqual({
        id: expect.any(String),
        email: address,
        name: 'Ada',
        emailVerifiedAt: null,
        createdAt: expect.any(String),
      });
      expect(res.body).toMatchObject({ expiresIn: 900, tokenType: 'Bearer', refreshToken: expect.stringMatching(/^hrt_/) });
      const me = await request(t.http).get('/api/auth/me').set('Authorization', `Bearer ${res.body.accessToken}`);
      expect(me.status).toBe(200);
      expect(me.body.email).toBe(address);
      const [row] = await t.db.query('SELECT password_hash FROM accounts WHERE email = $1', [address]);
      expect(row.password_hash).toMatch(/^scrypt\$/);
      expect(row.password_hash).not.toContain('long enough pw');
    });

    it('answers 409 email_taken for an email in use', async () => {
      const address = email();
      await request(t.http).post('/api/auth/register').send({ email: address, password: 'long enough pw', name: 'A' }).expect(201);
      const res = await request(t.http).post('/api/auth/register').send({ email: address, password: 'other long pw', name: 'B' });
      expect(res.status).toBe(409);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.body).toMatchObject({ status: 409, code: 'email_taken' });
    });

    it.each([
      [{ email: 'not-an-email', password: 'long enough pw', name: 'A' }, 'email'],
      [{ email: 'a@b.io', password: 'short', name: 'A' }, 'password'],
      [{ email: 'a@b.io', password: 'long enough pw', name: '' }, 'name'],
      [{ email: 'a@b.io', password: 'long enough pw', name: 'A', admin: true }, 'admin'],
      [{ email: 'a@b.io', password: 12345678901, name: 'A' }, 'password'],
    ])('answers 400 with the field for %j', async (body, field) => {
      const res = await request(t.http).post('/api/auth/register').send(body);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('invalid_input');
      expect(res.body.errors.map((e: { field: string }) => e.field)).toContain(field);
    });

    // A name is one line of text, never a forged paragraph in the mails that carry it.
    it.each([
      ['a line break and a URL', 'Ada\n\nYour account is locked, visit https://evil.example'],
      ['a carriage return', 'Ada\rLovelace'],
      ['a tab', 'Ada\tLovelace'],
      ['a line separator', 'Ada\u2028Lovelace'],
      ['a right-to-left override', 'Ada\u202Eecalevol'],
    ])('refuses a name with %s (400, field name), at sign-up, in PATCH /me and in account:create', async (_, name) => {
      const address = email();
      const res = await request(t.http).post('/api/auth/register').send({ email: address, password: 'long enough pw', name });
      expect(res.status).toBe(400);
      expect(res.body.errors).toContainEqual({ field: 'name', message: 'name must not contain control characters or line breaks' });
      expect(await t.db.query('SELECT 1 FROM accounts WHERE email = $1', [address])).toEqual([]);
      const account = await createAccount(t);
      const patched = await request(t.http).patch('/api/auth/me').set('Authorization', account.bearer).send({ name }).expect(400);
      expect(patched.body.errors.map((e: { field: string }) => e.field)).toEqual(['name']);
      expect((await request(t.http).get('/api/auth/me').set('Authorization', account.bearer)).body.name).toBe('Test User');
      const cli = await runCliIn(t.app, ['account:create', '--email', email(), '--password', 'long enough pw', '--name', name]);
      expect(cli.code).toBe(65);
      expect(cli.stderr).toContain('name must not contain control characters');
    });
  });

  describe('POST /api/auth/login', () => {
    it('logs in with the right password', async () => {
      const account = await createAccount(t);
      const res = await request(t.http).post('/api/auth/login').send({ email: account.email, password: account.password });
      expect(res.status).toBe(200);
      expect(res.body.account.id).toBe(account.id);
    });

    it('stores the hash again with the current cost when the password was hashed with another', async () => {
      const account = await createAccount(t);
      const older = await new PasswordHasher({ passwordHashCost: 11 } as AppConfig).hash(account.password);
      await t.db.query('UPDATE accounts SET password_hash = $2 WHERE id = $1', [account.id, older]);
      await request(t.http).post('/api/auth/login').send({ email: account.email, password: 'wrong password!' }).expect(401);
      expect(await storedHash(account.id)).toBe(older);
      await request(t.http).post('/api/auth/login').send({ email: account.email, password: account.password }).expect(200);
      expect(await storedHash(account.id)).toMatch(new RegExp(`^scrypt\\$${2 ** t.config.passwordHashCost}\\$8\\$1\\$`));
      await request(t.http).post('/api/auth/login').send({ email: account.email, password: account.password }).expect(200);
    });

    it('gives the same 401 body for a wrong password and an unknown email', async () => {
      const account = await createAccount(t);
      const wrong = await request(t.http).post('/api/auth/login').send({ email: account.email, password: 'wrong password!' });
      const unknown = await request(t.http).post('/api/auth/login').send({ email: email(), password: 'wrong password!' });
      expect(wrong.status).toBe(401);
      expect(unknown.status).toBe(401);
      const strip = (b: Record<string, unknown>) => ({ ...b, requestId: undefined });
      expect(strip(wrong.body)).toEqual(strip(unknown.body));
      expect(wrong.body.code).toBe('invalid_credentials');
    });

    it('answers 400 for a missing password', async () => {
      const res = await request(t.http).post('/api/auth/login').send({ email: 'a@b.io' });
      expect(res.status).toBe(400);
    });
  });

  describe('POST /api/auth/refresh', () => {
    it('rotates the refresh token; a spent one revokes the whole session', async () => {
      const account = await createAccount(t);
      const first = await request(t.http).post('/api/auth/refresh').send({ refreshToken: account.refreshToken });
      expect(first.status).toBe(200);
      expect(first.body.refreshToken).not.toBe(account.refreshToken);
      await request(t.http).get('/api/auth/me').set('Authorization', `Bearer ${first.body.accessToken}`).expect(200);

      const reuse = await request(t.http).post('/api/auth/refresh').send({ refreshToken: account.refreshToken });
      expect(reuse.status).toBe(401);
      // The family is gone: the newer refresh token and its access token no longer work.
      await request(t.http).post('/api/auth/refresh').send({ refreshToken: first.body.refreshToken }).expect(401);
      await request(t.http).get('/api/auth/me').set('Authorization', `Bearer ${first.body.accessToken}`).expect(401);
      await request(t.http).get('/api/auth/me').set('Authorization', account.bearer).expect(401);
    });

    it('answers 401 for an unknown token and 400 for a missing one', async () => {
      await request(t.http).post('/api/auth/refresh').send({ refreshToken: 'hrt_nope' }).expect(401);
      await request(t.http).post('/api/auth/refresh').send({}).expect(400);
    });
  });

  describe('POST /api/auth/logout', () => {
    it('ends the session at once (204)', async () => {
      const account = await createAccount(t);
      await request(t.http).post('/api/auth/logout').set('Authorization', account.bearer).expect(204);
      await request(t.http).get('/api/auth/me').set('Authorization', account.bearer).expect(401);
      await request(t.http).post('/api/auth/refresh').send({ refreshToken: account.refreshToken }).expect(401);
      // The API key is not a session and keeps working.
      await request(t.http).get('/api/auth/me').set('Authorization', account.keyBearer).expect(200);
    });

    it('answers 401 without a token and 403 for an API key', async () => {
      await request(t.http).post('/api/auth/logout').expect(401);
      const account = await createAccount(t);
      const res = await request(t.http).post('/api/auth/logout').set('Authorization', account.keyBearer);
      expect(res.status).toBe(403);
    });
  });

  describe('POST /api/auth/password', () => {
    it('changes the password and ends every other session', async () => {
      const account = await createAccount(t);
      const other = await request(t.http).post('/api/auth/login').send({ email: account.email, password: account.password });
      const res = await request(t.http)
        .post('/api/auth/password')
        .set('Authorization', account.bearer)
        .send({ currentPassword: account.password, newPassword: 'a brand new passphrase' });
      expect(res.status).toBe(204);
      await request(t.http).get('/api/auth/me').set('Authorization', account.bearer).expect(200);
      await request(t.http).get('/api/auth/me').set('Authorization', `Bearer ${other.body.accessToken}`).expect(401);
      await request(t.http).post('/api/auth/login').send({ email: account.email, password: account.password }).expect(401);
      await request(t.http).post('/api/auth/login').send({ email: account.email, password: 'a brand new passphrase' }).expect(200);
    });

    it('answers 400 for a wrong current password or a short new one, 401 without a token', async () => {
      const account = await createAccount(t);
      await request(t.http)
        .post('/api/auth/password')
        .set('Authorization', account.bearer)
        .send({ currentPassword: 'wrong password', newPassword: 'a brand new passphrase' })
        .expect(400);
      await request(t.http)
        .post('/api/auth/password')
        .set('Authorization', account.bearer)
        .send({ currentPassword: account.password, newPassword: 'short' })
        .expect(400);
      await request(t.http).post('/api/auth/password').send({ currentPassword: 'x', newPassword: 'a brand new passphrase' }).expect(401);
    });
  });

  describe('GET /api/auth/me', () => {
    it("works with an access token and with an API key, with the login's accounts and its role on the current one", async () => {
      const account = await createAccount(t);
      const [member] = await t.db.query('SELECT id FROM account_members WHERE account_id = $1 AND login_id = $1', [account.id]);
      for (const bearer of [account.bearer, account.keyBearer]) {
        const res = await request(t.http).get('/api/auth/me').set('Authorization', bearer);
        expect(res.status).toBe(200);
        expect(res.body).toEqual({
          id: account.id,
          email: account.email,
          name: 'Test User',
          emailVerifiedAt: expect.any(String),
          createdAt: expect.any(String),
          currentAccountId: account.id,
          role: 'owner',
          memberId: member.id,
          accounts: [{ accountId: account.id, name: 'Test User', role: 'owner' }],
        });
      }
    });
  });
});
