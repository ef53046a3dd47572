import { EventEmitter2 } from '@nestjs/event-emitter';
import request from 'supertest';
import { ApiKeyExpiryScanner } from '@app/api-keys';
import { domainEvent, DomainEvent } from '@app/core';
import { NotificationHub } from '@app/notifications';
import { createAccount, TestAccount } from './factories/accounts';
import { createService } from './factories/services';
import { openSse } from './support/sse';
import { startTestApp, TestApp } from './support/test-app';
import { TEST_DATABASE_URL } from './support/test-env';

async function until<T>(probe: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (ok(value) || Date.now() > deadline) return value;
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('Notifications', () => {
  let t: TestApp;
  let owner: TestAccount;
  let stranger: TestAccount;
  beforeAll(async () => {
    t = await startTestApp();
    owner = await createAccount(t);
    stranger = await createAccount(t);
  });
  afterAll(() => t.close());

  const list = (account: TestAccount, query = '') =>
    request(t.http).get(`/api/notifications${query}`).set('Authorization', account.keyBearer);
  const emit = (event: DomainEvent) => t.app.get(EventEmitter2).emit(event.name, event);
  const countOf = async (account: TestAccount) =>
    (await request(t.http).get('/api/notifications/unread-count').set('Authorization', account.bearer)).body.count as number;
  const typesOf = async (account: TestAccount) => (await list(account, '?pageSize=100')).body.data.map((n: { type: string }) => n.type);

  it('turns each event source into a notification for the right account only', async () => {
    const account = await createAccount(t);
    const ticketId = '11111111-1111-4111-8111-111111111111';
    const serviceId = '22222222-2222-4222-8222-222222222222';
    emit(domainEvent('ticket.replied', account.id, { ticketId, reference: 'T-000001', subject: 'Disk', messageId: ticketId, author: 'staff' }));
    emit(domainEvent('ticket.replied', account.id, { ticketId, reference: 'T-000001', subject: 'Disk', messageId: ticketId, author: 'customer' }));
    emit(domainEvent('ticket.closed', account.id, { ticketId, reference: 'T-000001', subject: 'Disk' }));
    emit(domainEvent('instance.action_failed', account.id, { serviceId, serviceName: 'web-1', actionId: ticketId, type: 'start', error: { code: 'x', message: 'no capacity' } }));
    emit(domainEvent('service.status_changed', account.id, { serviceId, serviceName: 'web-1', from: 'active', to: 'suspended', reason: 'overdue' }));
    await request(t.http).post('/api/auth/api-keys').set('Authorization', account.bearer).send({ name: 'ci' }).expect(201);

    const types = await until(() => typesOf(account), (ts) => ts.length >= 6);
    expect([...types].sort()).toEqual(
      ['api_key_created', 'api_key_created', 'instance_action_failed', 'service_status_changed', 'ticket_closed', 'ticket_replied'].sort(),
    );
    const page = (await list(account, '?pageSize=100')).body.data;
    const suspended = page.find((n: { type: string }) => n.type === 'service_status_changed');
    expect(suspended).toMatchObject({
      severity: 'critical',
      title: 'web-1 is now suspended',
      link: `/api/services/${serviceId}`,
      entity: { type: 'service', id: serviceId },
      readAt: null,
    });
    expect(await typesOf(stranger)).not.toContain('service_status_changed');
  });

  it('notifies when a real instance action finishes', async () => {
    const account = await createAccount(t);
    const vps = await createService(t, account.id, { powerState: 'stopped' });
    await request(t.http).post(`/api/services/${vps.id}/instance/start`).set('Authorization', account.keyBearer).expect(202);
    const types = await until(() => typesOf(account), (ts) => ts.includes('instance_action_succeeded'));
    expect(types).toContain('instance_action_succeeded');
  });

  it('announces API keys that expire within 7 days, once per key', async () => {
    const account = await createAccount(t);
    const soon = new Date(Date.now() + 3 * 86400_000).toISOString();
    await request(t.http).post('/api/auth/api-keys').set('Authorization', account.bearer).send({ name: 'short-lived', expiresAt: soon }).expect(201);
    await request(t.http).post('/api/auth/api-keys').set('Authorization', account.bearer).send({ name: 'long-lived', expiresAt: new Date(Date.now() + 30 * 86400_000).toISOString() }).expect(201);
    const scanner = t.app.get(ApiKeyExpiryScanner);
    await scanner.scan();
    await scanner.scan();
    const types = await until(() => typesOf(account), (ts) => ts.includes('api_key_expiring'));
    await new Promise((r) => setTimeout(r, 200));
    expect((await typesOf(account)).filter((x: string) => x === 'api_key_expiring')).toHaveLength(1);
    expect(types).toContain('api_key_expiring');
  });

  it('counts unread, marks one read idempotently, lists by read state', async () => {
    const account = await createAccount(t);
    await until(() => countOf(account), (n) => n === 1);
    for (let i = 0; i < 3; i++) emit(domainEvent('ticket.closed', account.id, { ticketId: '11111111-1111-4111-8111-111111111111', reference: `T-${i}`, subject: 's' }));
    expect(await until(() => countOf(account), (n) => n === 4)).toBe(4);
    const [first] = (await list(account)).body.data;
    const read = await request(t.http).post(`/api/notifications/${first.id}/read`).set('Authorization', account.keyBearer);
    expect(read.status).toBe(200);
    expect(read.body.readAt).toEqual(expect.any(String));
    const again = await request(t.http).post(`/api/notifications/${first.id}/read`).set('Authorization', account.bearer);
    expect(again.status).toBe(200);
    expect(again.body.readAt).toBe(read.body.readAt);
    expect(await countOf(account)).toBe(3);
    expect((await list(account, '?unread=true')).body.total).toBe(3);
    expect((await list(account, '?unread=false')).body.data.map((n: { id: string }) => n.id)).toEqual([first.id]);
    const one = await request(t.http).get(`/api/notifications/${first.id}`).set('Authorization', account.keyBearer);
    expect(one.body).toEqual(read.body);
  });

  it('marks all read in one statement, safe under 20 concurrent calls', async () => {
    const account = await createAccount(t);
    await t.db.query(
      `INSERT INTO notifications (account_id, type, severity, title, body) SELECT $1, 'ticket_closed', 'info', 't', 'b' FROM generate_series(1, 50)`,
      [account.id],
    );
    const total = await until(() => countOf(account), (n) => n === 51);
    const results = await Promise.all(
      Array.from({ length: 20 }, () => request(t.http).post('/api/notifications/read-all').set('Authorization', account.keyBearer)),
    );
    expect(results.every((r) => r.status === 200)).toBe(true);
    expect(results.reduce((sum, r) => sum + r.body.updated, 0)).toBe(total);
    expect(await countOf(account)).toBe(0);
    const none = await request(t.http).post('/api/notifications/read-all').set('Authorization', account.keyBearer);
    expect(none.body).toEqual({ updated: 0 });
  });

  it('answers 404 for another account\'s notification and leaves it unread', async () => {
    const account = await createAccount(t);
    const [theirs] = (await until(() => list(account), (r) => r.body.data.length > 0)).body.data;
    for (const call of [request(t.http).get(`/api/notifications/${theirs.id}`), request(t.http).post(`/api/notifications/${theirs.id}/read`)]) {
      const res = await call.set('Authorization', owner.keyBearer);
      expect(res.status).toBe(404);
    }
    expect((await request(t.http).get(`/api/notifications/${theirs.id}`).set('Authorization', account.bearer)).body.readAt).toBeNull();
  });

  it('answers 401 without a token, 400 for bad input, 403 to a read-only key on writes', async () => {
    for (const path of ['/api/notifications', '/api/notifications/unread-count', '/api/notifications/stream']) await request(t.http).get(path).expect(401);
    await request(t.http).post('/api/notifications/read-all').expect(401);
    await list(owner, '?unread=maybe').expect(400);
    await list(owner, '?pageSize=0').expect(400);
    await request(t.http).get('/api/notifications/123').set('Authorization', owner.bearer).expect(400);
    await request(t.http).post('/api/notifications/123/read').set('Authorization', owner.bearer).expect(400);
    const reader = await createAccount(t, { scopes: ['read'] });
    await request(t.http).get('/api/notifications/unread-count').set('Authorization', reader.keyBearer).expect(200);
    await request(t.http).post('/api/notifications/read-all').set('Authorization', reader.keyBearer).expect(403);
  });

  it('streams new notifications and the unread count; closing frees the listener', async () => {
    const account = await createAccount(t);
    const hub = t.app.get(NotificationHub);
    const before = await until(() => countOf(account), (n) => n === 1);
    const stream = await openSse(t.http, '/api/notifications/stream', account.keyBearer);
    expect(stream.response.headers['content-type']).toMatch(/^text\/event-stream/);
    expect(stream.response.headers['cache-control']).toBe('no-store');
    expect((await stream.next('unread-count')).data).toEqual({ count: before });
    emit(domainEvent('ticket.closed', account.id, { ticketId: '11111111-1111-4111-8111-111111111111', reference: 'T-9', subject: 'live' }));
    const pushed = await stream.next('notification');
    expect(pushed.data).toMatchObject({ type: 'ticket_closed', title: 'Ticket T-9 closed', readAt: null });
    expect((await stream.next('unread-count')).data).toEqual({ count: before + 1 });
    expect(stream.raw()).toContain('retry:');
    expect(hub.listenerCount(account.id)).toBe(1);
    stream.close();
    await until(async () => hub.listenerCount(account.id), (n) => n === 0);
    expect(hub.listenerCount(account.id)).toBe(0);
  });
});

(TEST_DATABASE_URL ? describe : describe.skip)('Notification streams across API processes (PostgreSQL)', () => {
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    a = await startTestApp();
    b = await startTestApp();
  });
  afterAll(async () => {
    await a.close();
    await b.close();
  });

  it('delivers a notification made by one process to a stream held by another', async () => {
    const account = await createAccount(a);
    const stream = await openSse(a.http, '/api/notifications/stream', account.keyBearer);
    await stream.next('unread-count');
    b.app.get(EventEmitter2).emit('ticket.closed', domainEvent('ticket.closed', account.id, { ticketId: '11111111-1111-4111-8111-111111111111', reference: 'T-X', subject: 'cross' }));
    // The account's own "key created" notice may arrive first; wait for the one made by process B.
    let pushed = await stream.next('notification', 8000);
    while (pushed.data.type !== 'ticket_closed') pushed = await stream.next('notification', 8000);
    expect(pushed.data).toMatchObject({ type: 'ticket_closed', title: 'Ticket T-X closed' });
    stream.close();
  });
});
