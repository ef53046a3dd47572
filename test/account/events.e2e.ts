import request from 'supertest';
import { ActivityAction, ActivityLog, TransactionRunner } from '@app/core';
import { createAccount, TestAccount } from '../factories/accounts';
import { sharedTestApp, startAppWithAccounts, TestAppWithAccounts } from '../support/test-app';
import { waitFor } from '../support/wait-for';

describe('Activity log routes', () => {
  let t: TestAppWithAccounts;
  let owner: TestAccount;
  let stranger: TestAccount;
  beforeAll(async () => {
    ({ owner, stranger } = t = await startAppWithAccounts());
  });

  const record = (accountId: string, action: ActivityAction, entity: { type: string; id: string } | null = null) =>
    t.app.get(TransactionRunner).run((m) => t.app.get(ActivityLog).record(m, { accountId, action, entity, details: { n: 1 } }));

  it('answers 401 without a bearer token', async () => {
    expect((await request(t.http).get('/api/events')).status).toBe(401);
    expect((await request(t.http).get('/api/events/2b0f1f4e-3a52-4c7c-9a5e-0d6f4f3e2a10')).status).toBe(401);
  });

  it('shows an entry recorded outside a request, with the system as actor, to its account only', async () => {
    const account = await createAccount(t);
    const entry = await record(account.id, 'service.status_change', { type: 'service', id: '2b0f1f4e-3a52-4c7c-9a5e-0d6f4f3e2a10' });
    const res = await t.get(`/api/events/${entry.id}`, account.keyBearer);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: entry.id,
      action: 'service.status_change',
      entity: { type: 'service', id: '2b0f1f4e-3a52-4c7c-9a5e-0d6f4f3e2a10' },
      actor: { type: 'system', id: null, name: null, memberId: null, email: null, keyId: null },
      ip: null,
      userAgent: null,
      requestId: null,
      status: 'succeeded',
      details: { n: 1 },
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    const stolen = await t.get(`/api/events/${entry.id}`, stranger.bearer);
    expect(stolen.status).toBe(404);
    expect(stolen.headers['content-type']).toMatch(/application\/problem\+json/);
    expect((await t.get(`/api/events/${entry.id}`, owner.bearer)).status).toBe(404);
  });

  it('400 for a malformed id and for bad filters', async () => {
    expect((await t.get('/api/events/not-a-uuid', owner.bearer)).status).toBe(400);
    for (const q of ['action=DROP%20TABLE', 'entityType=Service!', 'entityId=42', 'since=yesterday', 'pageSize=0', 'page=x', 'other=1']) {
      const res = await t.get(`/api/events?${q}`, owner.bearer);
      expect({ q, status: res.status }).toEqual({ q, status: 400 });
    }
  });

  it('lists newest first, paginated, with filters', async () => {
    const account = await createAccount(t);
    const serviceId = '6d9b4d0c-5a1e-4f3b-8c2d-1e0f9a8b7c6d';
    const first = await record(account.id, 'instance.start', { type: 'service', id: serviceId });
    const second = await record(account.id, 'instance.stop', { type: 'service', id: serviceId });
    const third = await record(account.id, 'ticket.create', { type: 'ticket', id: '0c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f' });
    const all = await t.get('/api/events?pageSize=2', account.bearer);
    expect(all.status).toBe(200);
    // The factory's API key was recorded first.
    expect(all.body).toMatchObject({ page: 1, pageSize: 2, total: 4, totalPages: 2 });
    const ids = (await Promise.all([1, 2].map((page) => t.get(`/api/events?pageSize=2&page=${page}`, account.bearer)))).flatMap((r) =>
      r.body.data.map((e: { id: string }) => e.id),
    );
    expect(ids.slice(0, 3)).toEqual([third.id, second.id, first.id]);
    expect(all.body.data[0]).toMatchObject({ action: 'ticket.create', actor: { type: 'system' } });
    const byAction = await t.get('/api/events?action=instance.stop', account.bearer);
    expect(byAction.body.data.map((e: { id: string }) => e.id)).toEqual([second.id]);
    const byEntity = await t.get(`/api/events?entityType=service&entityId=${serviceId}`, account.bearer);
    expect(byEntity.body.data.map((e: { id: string }) => e.id)).toEqual([second.id, first.id]);
    const future = await t.get(`/api/events?since=${new Date(Date.now() + 60_000).toISOString()}`, account.bearer);
    expect(future.body).toMatchObject({ data: [], total: 0 });
    const past = await t.get(`/api/events?since=${first.createdAt.toISOString()}`, account.bearer);
    expect(past.body.total).toBe(3);
  });

  it('a read-only API key can read the log', async () => {
    const account = await createAccount(t, { scopes: ['read'] });
    await record(account.id, 'ssh_key.create');
    const res = await t.get('/api/events', account.keyBearer);
    expect(res.status).toBe(200);
    expect(res.body.total).toBeGreaterThanOrEqual(1);
  });
});

// Past the cap of 10 entries a minute, the other addresses still show.
describe('Activity log: refused sign-ins past the cap', () => {
  it('keeps one summary entry per minute with the count and the distinct addresses', async () => {
    // Requests come through a trusted proxy, so the test plays clients on several addresses.
    const t = await sharedTestApp({ TRUST_PROXY: '127.0.0.1' });
    const account = await createAccount(t);
    const fail = (ip: string) =>
      request(t.http)
        .post('/api/auth/login')
        .set('X-Forwarded-For', ip)
        .send({ email: account.email, password: 'a wrong guess' })
        .expect(401);
    for (let i = 0; i < 12; i++) await fail('198.51.100.1');
    for (let i = 0; i < 3; i++) await fail('203.0.113.2');
    await fail('192.0.2.3');
    const entries = (action: string) =>
      t.db.query('SELECT ip, status, details FROM activity_events WHERE account_id = $1 AND action = $2', [account.id, action]);
    const [summary] = await waitFor(
      () => entries('auth.failures_summary'),
      (rows) => rows[0]?.details.failures === 6,
    );
    expect(summary).toEqual({
      ip: null,
      status: 'failed',
      details: {
        failures: 6,
        distinctIps: 3,
        ips: expect.arrayContaining(['198.51.100.1', '203.0.113.2', '192.0.2.3']),
        windowStart: expect.any(String),
        windowEnd: expect.any(String),
      },
    });
    const single = await entries('auth.login_failed');
    expect(single).toHaveLength(10);
    expect(new Set(single.map((e: { ip: string }) => e.ip))).toEqual(new Set(['198.51.100.1']));
    // The customer reads it through the API as any other entry.
    const listed = await t.get('/api/events?action=auth.failures_summary', account.bearer).expect(200);
    expect(listed.body.data).toEqual([expect.objectContaining({ status: 'failed', details: expect.objectContaining({ distinctIps: 3 }) })]);
  });
});
