import request from 'supertest';
import { createAccount } from './factories/accounts';
import { startTestApp, TestApp } from './support/test-app';

describe('Rate limits', () => {
  let t: TestApp;
  beforeAll(async () => (t = await startTestApp({ RATE_LIMIT_PER_MINUTE: '5', RATE_LIMIT_LOGIN_PER_MINUTE: '2' })));
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

  it('limits login attempts per email, whatever the password', async () => {
    const account = await createAccount(t);
    const attempt = () => request(t.http).post('/api/auth/login').send({ email: account.email, password: 'wrong password' });
    expect((await attempt()).status).toBe(401);
    const second = await attempt();
    expect(second.status).toBe(401);
    expect(second.headers['ratelimit-limit']).toBe('2');
    const third = await attempt();
    expect(third.status).toBe(429);
    expect(third.headers['retry-after']).toBeDefined();
  });
});
