import request from 'supertest';
import { generateApiKey } from '@app/api-keys';
import { createAccount } from '../factories/accounts';
import { startTestApp, TestApp } from '../support/test-app';

describe('Rate limits', () => {
  let t: TestApp;
  beforeAll(
    async () =>
      (t = await startTestApp({
        RATE_LIMIT_PER_MINUTE: '5',
        RATE_LIMIT_LOGIN_PER_MINUTE: '2',
        RATE_LIMIT_LOGIN_EMAIL_FAILURES_PER_MINUTE: '6',
        RATE_LIMIT_AUTH_FAILURES_PER_MINUTE: '8',
        // Requests come through a trusted proxy, so each test can play clients on other addresses.
        TRUST_PROXY: '127.0.0.1',
      })),
  );
  afterAll(() => t.close());

  it('reports the budget in RateLimit headers and answers 429 with Retry-After when spent', async () => {
    const account = await createAccount(t);
    const remaining: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await request(t.http).get('/api/auth/me').set('Authorization', account.keyBearer).expect(200);
      expect(res.headers['ratelimit-limit']).toBe('5');
      remaining.push(res.headers['ratelimit-remaining']);
    }
    expect(remaining).toEqual(['4', '3', '2', '1', '0']);
    const limited = await request(t.http).get('/api/auth/me').set('Authorization', account.keyBearer);
    expect(limited.status).toBe(429);
    expect(limited.body.code).toBe('rate_limited');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(limited.headers['ratelimit-reset'])).toBeLessThanOrEqual(60);
    // The budget is per credential: the same account's access token has its own.
    await request(t.http).get('/api/auth/me').set('Authorization', account.bearer).expect(200);
  });

  it('limits failed logins per email and IP', async () => {
    const account = await createAccount(t);
    const attempt = () =>
      request(t.http)
        .post('/api/auth/login')
        .set('X-Forwarded-For', '198.51.100.200')
        .send({ email: account.email, password: 'wrong password' });
    expect((await attempt()).status).toBe(401);
    const second = await attempt();
    expect(second.status).toBe(401);
    expect(second.headers['ratelimit-limit']).toBe('2');
    const third = await attempt();
    expect(third.status).toBe(429);
    expect(third.headers['retry-after']).toBeDefined();
  });

  it('lets the owner in from a new address while others fail from many (issue 17, finding 8)', async () => {
    const account = await createAccount(t);
    const login = (ip: string, password: string) =>
      request(t.http).post('/api/auth/login').set('X-Forwarded-For', ip).send({ email: account.email, password });
    for (let i = 1; i <= 11; i++) expect((await login(`198.51.100.${i}`, 'a wrong guess')).status).toBe(401);
    // Past the per-email ceiling (6 failures) an address that already failed for this email waits...
    expect((await login('198.51.100.1', account.password)).status).toBe(429);
    // ...while the owner's correct password from an address without failures gets through.
    expect((await login('203.0.113.50', account.password)).status).toBe(200);
  });

  it('applies the login budget to password changes, per account (issue 17, finding 7)', async () => {
    const account = await createAccount(t);
    const change = (currentPassword: string) =>
      request(t.http)
        .post('/api/auth/password')
        .set('Authorization', account.bearer)
        .send({ currentPassword, newPassword: 'a brand new passphrase' });
    expect((await change('guess number one')).status).toBe(400);
    expect((await change('guess number two')).status).toBe(400);
    const third = await change(account.password);
    expect(third.status).toBe(429);
    expect(third.body.code).toBe('rate_limited');
  });

  // No route that checks a password is a way around the sign-in budget.
  it('shares one failure budget per account and IP between sign-in and every route that checks the current password', async () => {
    const account = await createAccount(t);
    const from = (ip: string) => ({
      updateMe: (currentPassword: string) =>
        request(t.http)
          .patch('/api/auth/me')
          .set('X-Forwarded-For', ip)
          .set('Authorization', account.bearer)
          .send({ email: `moved-${account.email}`, currentPassword }),
      changePassword: (currentPassword: string) =>
        request(t.http)
          .post('/api/auth/password')
          .set('X-Forwarded-For', ip)
          .set('Authorization', account.bearer)
          .send({ currentPassword, newPassword: 'a brand new passphrase' }),
      disable2fa: (password: string) =>
        request(t.http)
          .post('/api/auth/2fa/disable')
          .set('X-Forwarded-For', ip)
          .set('Authorization', account.bearer)
          .send({ password, code: '123456' }),
      login: (password: string) =>
        request(t.http).post('/api/auth/login').set('X-Forwarded-For', ip).send({ email: account.email, password }),
    });
    const guesser = from('198.51.100.66');
    expect((await guesser.updateMe('guess number one')).status).toBe(400);
    expect((await guesser.changePassword('guess number two')).status).toBe(400);
    // The budget (2 here) is spent: every check from this address is refused, the right password too...
    for (const res of [
      await guesser.updateMe(account.password),
      await guesser.disable2fa(account.password),
      await guesser.login(account.password),
    ]) {
      expect(res.status).toBe(429);
      expect(res.body.code).toBe('rate_limited');
    }
    // ...while the owner on another address is not locked out.
    expect((await from('203.0.113.66').login(account.password)).status).toBe(200);
    // Each wrong password is a failed auth.* entry of the account, naming where it was tried.
    const entries = await t.db.query(
      `SELECT action, status, ip, details FROM activity_events WHERE account_id = $1 AND status = 'failed' ORDER BY created_at`,
      [account.id],
    );
    expect(entries).toEqual([
      {
        action: 'auth.password_check_failed',
        status: 'failed',
        ip: '198.51.100.66',
        details: { reason: 'wrong_password', operation: 'email_change' },
      },
      {
        action: 'auth.password_check_failed',
        status: 'failed',
        ip: '198.51.100.66',
        details: { reason: 'wrong_password', operation: 'password_change' },
      },
    ]);
  });

  it('answers 429 to an address after too many failed authentications, before looking the key up (issue 17, finding 9)', async () => {
    const account = await createAccount(t);
    const me = (authorization: string, ip: string) =>
      request(t.http).get('/api/auth/me').set('X-Forwarded-For', ip).set('Authorization', authorization);
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) statuses.push((await me(`Bearer ${generateApiKey()}`, '192.0.2.9')).status);
    expect(statuses).toEqual([401, 401, 401, 401, 401, 401, 401, 401, 429, 429]);
    const blocked = await me(account.keyBearer, '192.0.2.9');
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
    expect((await me(account.keyBearer, '192.0.2.10')).status).toBe(200);
  });
});
