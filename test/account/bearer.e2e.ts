import { sign } from 'jsonwebtoken';
import request from 'supertest';
import { createAccount } from '../factories/accounts';
import { sharedTestApp, TestApp } from '../support/test-app';

describe('Bearer authentication', () => {
  let t: TestApp;
  beforeAll(async () => (t = await sharedTestApp()));

  it('answers 401 problem with WWW-Authenticate when the header is missing', async () => {
    const res = await request(t.http).get('/api/auth/me');
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Bearer');
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body).toEqual({
      type: '/problems/unauthorized',
      title: 'Unauthorized',
      status: 401,
      detail: expect.any(String),
      code: 'unauthorized',
      requestId: res.headers['x-request-id'],
    });
  });

  it.each([
    ['a malformed header', 'Token abc'],
    [
      'a forged JWT',
      `Bearer ${sign({ sid: '00000000-0000-0000-0000-000000000000', typ: 'access' }, 'not-the-secret-xxxxxxxxxxxxxxxxxxxxxxx', { subject: '00000000-0000-0000-0000-000000000000', issuer: 'hosting-account-api' })}`,
    ],
    ['an API key with a bad checksum', 'Bearer hpk_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa000000'],
    ['an unknown well-formed API key', 'Bearer hpk_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'],
    ['garbage', 'Bearer ' + 'x'.repeat(50)],
  ])('answers 401 for %s', async (_name, header) => {
    const res = await request(t.http).get('/api/auth/me').set('Authorization', header);
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('unauthorized');
  });

  it('ignores tokens in the query string', async () => {
    const account = await createAccount(t);
    const res = await request(t.http).get(`/api/auth/me?access_token=${account.apiKey}`);
    expect(res.status).toBe(401);
  });

  it('refuses an access token signed for another session id of the same account', async () => {
    const account = await createAccount(t);
    const token = sign({ sid: '00000000-0000-0000-0000-000000000000', typ: 'access' }, t.config.jwtSecret, {
      subject: account.id,
      issuer: 'hosting-account-api',
      expiresIn: 60,
    });
    await request(t.http).get('/api/auth/me').set('Authorization', `Bearer ${token}`).expect(401);
  });

  it('refuses an expired access token', async () => {
    const account = await createAccount(t);
    const [{ id }] = await t.db.query('SELECT id FROM sessions WHERE account_id = $1', [account.id]);
    const token = sign({ sid: id, typ: 'access', exp: Math.floor(Date.now() / 1000) - 10 }, t.config.jwtSecret, {
      subject: account.id,
      issuer: 'hosting-account-api',
    });
    await request(t.http).get('/api/auth/me').set('Authorization', `Bearer ${token}`).expect(401);
  });

  it('echoes a sane X-Request-Id and replaces an unsafe one', async () => {
    const ok = await request(t.http).get('/health/live').set('X-Request-Id', 'client-id-12345');
    expect(ok.headers['x-request-id']).toBe('client-id-12345');
    const bad = await request(t.http).get('/health/live').set('X-Request-Id', 'short');
    expect(bad.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });
});
