import request from 'supertest';
import { SessionActivity } from '@app/auth';
import { createAccount } from '../factories/accounts';
import { sharedTestApp, TestApp, startTwoApps, TwoApps } from '../support/test-app';
import { TEST_DATABASE_URL } from '../support/test-env';

const login = (t: TestApp, email: string, password: string, userAgent = 'jest-agent/1.0') =>
  request(t.http).post('/api/auth/login').set('User-Agent', userAgent).send({ email, password }).expect(200);

describe('Sessions (GET/DELETE /api/auth/sessions)', () => {
  let t: TestApp;
  beforeAll(async () => (t = await sharedTestApp()));

  it('lists live sessions newest first, marks the current one, and records ip and user agent', async () => {
    const owner = await createAccount(t);
    const second = await login(t, owner.email, owner.password, 'laptop-browser/2.0');
    const res = await request(t.http).get('/api/auth/sessions').set('Authorization', `Bearer ${second.body.accessToken}`).expect(200);
    expect(res.body).toMatchObject({ page: 1, pageSize: 10, total: 2, totalPages: 1 });
    const [newest, oldest] = res.body.data;
    expect(newest).toMatchObject({ current: true, userAgent: 'laptop-browser/2.0', ip: expect.stringContaining('127.0.0.1') });
    expect(oldest).toMatchObject({ current: false, userAgent: null, ip: null });
    expect(Date.parse(newest.createdAt)).toBeGreaterThanOrEqual(Date.parse(oldest.createdAt));
  });

  it('keeps lastUsedAt off the request path and fills it in on the next flush', async () => {
    const owner = await createAccount(t);
    const before = await request(t.http).get('/api/auth/sessions').set('Authorization', owner.bearer).expect(200);
    expect(before.body.data[0].lastUsedAt).toBeNull();
    await t.app.get(SessionActivity).flush();
    const after = await request(t.http).get('/api/auth/sessions').set('Authorization', owner.bearer).expect(200);
    expect(after.body.data[0].lastUsedAt).toEqual(expect.any(String));
  });

  it('revokes one session: its access and refresh tokens stop working at once', async () => {
    const owner = await createAccount(t);
    const other = await login(t, owner.email, owner.password);
    const list = await request(t.http).get('/api/auth/sessions').set('Authorization', owner.bearer).expect(200);
    const target = list.body.data.find((s: { current: boolean }) => !s.current);
    await request(t.http).delete(`/api/auth/sessions/${target.id}`).set('Authorization', owner.bearer).expect(204);
    await request(t.http).get('/api/auth/me').set('Authorization', `Bearer ${other.body.accessToken}`).expect(401);
    await request(t.http).post('/api/auth/refresh').send({ refreshToken: other.body.refreshToken }).expect(401);
    await request(t.http).get('/api/auth/me').set('Authorization', owner.bearer).expect(200);
    await request(t.http).delete(`/api/auth/sessions/${target.id}`).set('Authorization', owner.bearer).expect(404);
  });

  it("revoking the caller's own session is a logout: 204, then its tokens are refused (documented on the operation)", async () => {
    const owner = await createAccount(t);
    const own = await login(t, owner.email, owner.password);
    const bearer = `Bearer ${own.body.accessToken}`;
    const list = await request(t.http).get('/api/auth/sessions').set('Authorization', bearer).expect(200);
    const current = list.body.data.find((s: { current: boolean }) => s.current);
    await request(t.http).delete(`/api/auth/sessions/${current.id}`).set('Authorization', bearer).expect(204);
    const after = await request(t.http).get('/api/auth/me').set('Authorization', bearer).expect(401);
    expect(after.body.code).toBe('unauthorized');
    await request(t.http).post('/api/auth/refresh').send({ refreshToken: own.body.refreshToken }).expect(401);
    await request(t.http).get('/api/auth/me').set('Authorization', owner.bearer).expect(200);
  });

  it('DELETE /api/auth/sessions ends every session but the current one', async () => {
    const owner = await createAccount(t);
    const others = [await login(t, owner.email, owner.password), await login(t, owner.email, owner.password)];
    await request(t.http).delete('/api/auth/sessions').set('Authorization', owner.bearer).expect(204);
    for (const other of others)
      await request(t.http).get('/api/auth/me').set('Authorization', `Bearer ${other.body.accessToken}`).expect(401);
    const list = await request(t.http).get('/api/auth/sessions').set('Authorization', owner.bearer).expect(200);
    expect(list.body.data).toHaveLength(1);
    expect(list.body.data[0].current).toBe(true);
  });

  it("another account's session id is a 404 and stays live", async () => {
    const owner = await createAccount(t);
    const stranger = await createAccount(t);
    const [victim] = (await request(t.http).get('/api/auth/sessions').set('Authorization', owner.bearer).expect(200)).body.data;
    const res = await request(t.http).delete(`/api/auth/sessions/${victim.id}`).set('Authorization', stranger.bearer).expect(404);
    expect(res.body.code).toBe('not_found');
    await request(t.http).get('/api/auth/me').set('Authorization', owner.bearer).expect(200);
  });

  it('refuses API keys (403), missing tokens (401) and bad ids (400)', async () => {
    const owner = await createAccount(t);
    expect((await request(t.http).get('/api/auth/sessions').set('Authorization', owner.keyBearer).expect(403)).body.code).toBe('forbidden');
    await request(t.http).delete('/api/auth/sessions').set('Authorization', owner.keyBearer).expect(403);
    await request(t.http).get('/api/auth/sessions').expect(401);
    await request(t.http).delete('/api/auth/sessions/not-a-uuid').set('Authorization', owner.bearer).expect(400);
    await request(t.http).get('/api/auth/sessions?pageSize=1000').set('Authorization', owner.bearer).expect(400);
  });
});

// Several API processes share one database only on PostgreSQL.
(TEST_DATABASE_URL ? describe : describe.skip)('Sessions across API processes (PostgreSQL)', () => {
  let a: TestApp;
  let b: TestApp;
  let apps: TwoApps;
  beforeAll(async () => ({ a, b } = apps = await startTwoApps()));
  afterAll(() => apps.close());

  it('a session revoked on one process is refused on the other at its next request', async () => {
    const owner = await createAccount(a);
    const other = await login(b, owner.email, owner.password, 'phone/1.0');
    await request(b.http).get('/api/auth/me').set('Authorization', `Bearer ${other.body.accessToken}`).expect(200);
    const list = await request(a.http).get('/api/auth/sessions').set('Authorization', owner.bearer).expect(200);
    const phone = list.body.data.find((s: { userAgent: string | null }) => s.userAgent === 'phone/1.0');
    await request(a.http).delete(`/api/auth/sessions/${phone.id}`).set('Authorization', owner.bearer).expect(204);
    await request(b.http).get('/api/auth/me').set('Authorization', `Bearer ${other.body.accessToken}`).expect(401);
    await request(b.http).get('/api/auth/me').set('Authorization', owner.bearer).expect(200);
  });
});
