import { randomUUID } from 'node:crypto';
import { sign } from 'jsonwebtoken';
import request from 'supertest';
import { domainEvent } from '@app/core';
import { NotificationHub } from '@app/notifications';
import { NotificationsRepository } from '../../libs/notifications/src/notifications.repository';
import { createSettledAccount, emitEvent, insertNotifications, waitFor } from '../factories/notifications';
import { TestAccount } from '../factories/accounts';
import { openSse, SseClient } from '../support/sse';
import { startTestApp, TestApp } from '../support/test-app';
import { TEST_DATABASE_URL } from '../support/test-env';

const HEARTBEAT_MS = 100;
const closed = (stream: SseClient) =>
  new Promise<void>((resolve) => {
    if (stream.response.complete || stream.response.destroyed) return resolve();
    stream.response.once('end', resolve);
    stream.response.once('close', resolve);
  });
const ticketClosed = (accountId: string, reference: string) =>
  domainEvent('ticket.closed', accountId, { ticketId: randomUUID(), reference, subject: 'live' });

describe('Notification stream (Server-Sent Events)', () => {
  let t: TestApp;
  let hub: NotificationHub;
  beforeAll(async () => {
    t = await startTestApp({ NOTIFICATIONS_HEARTBEAT_MS: String(HEARTBEAT_MS) });
    hub = t.app.get(NotificationHub);
  });
  afterAll(async () => {
    await t.close();
  });

  const open = (account: TestAccount, bearer = account.keyBearer) => openSse(t.http, '/api/notifications/stream', bearer);

  it('starts with event-stream headers, a reconnect hint and the unread count', async () => {
    const account = await createSettledAccount(t);
    const stream = await open(account, account.bearer);
    try {
      expect(stream.response.statusCode).toBe(200);
      expect(stream.response.headers['content-type']).toMatch(/^text\/event-stream/);
      expect(stream.response.headers['cache-control']).toBe('no-store');
      expect(stream.response.headers['x-request-id']).toEqual(expect.any(String));
      expect((await stream.next('unread-count')).data).toEqual({ count: 1 });
      expect(stream.raw()).toMatch(/^retry: \d+\n\n/);
    } finally {
      stream.close();
    }
  });

  it("pushes each new notification and the new count to that account's streams only", async () => {
    const account = await createSettledAccount(t);
    const other = await createSettledAccount(t);
    const [first, second, theirs] = await Promise.all([open(account), open(account, account.bearer), open(other)]);
    try {
      for (const stream of [first, second, theirs]) await stream.next('unread-count');
      emitEvent(t, ticketClosed(account.id, 'T-LIVE'));
      for (const stream of [first, second]) {
        const pushed = await stream.next('notification');
        expect(pushed.data).toEqual({
          id: expect.any(String),
          type: 'ticket_closed',
          severity: 'info',
          title: 'Ticket T-LIVE closed',
          body: expect.any(String),
          link: expect.stringMatching(/^\/api\/support\/tickets\//),
          entity: { type: 'ticket', id: expect.any(String) },
          readAt: null,
          createdAt: expect.any(String),
        });
        expect((await stream.next('unread-count')).data).toEqual({ count: 2 });
      }
      await new Promise((resolve) => setTimeout(resolve, 300));
      // Only the ticket's: the other account's own key notification may still be on its way (NOTIFY is async).
      expect(theirs.events.filter((e) => e.event === 'notification' && (e.data as { type?: string }).type === 'ticket_closed')).toEqual([]);
    } finally {
      [first, second, theirs].forEach((s) => s.close());
    }
  });

  it('starts with the count even when a notification lands while the count is read, and sends that notification after it', async () => {
    const account = await createSettledAccount(t);
    const repository = t.app.get(NotificationsRepository);
    const count = repository.unreadCount.bind(repository);
    let reading!: () => void;
    let goOn!: () => void;
    const started = new Promise<void>((resolve) => (reading = resolve));
    const held = new Promise<void>((resolve) => (goOn = resolve));
    const spy = jest.spyOn(repository, 'unreadCount').mockImplementationOnce(async (accountId) => {
      reading();
      await held;
      return count(accountId);
    });
    const opening = open(account);
    try {
      await started;
      emitEvent(t, ticketClosed(account.id, 'T-EARLY'));
      await waitFor(
        async () =>
          (await t.db.query(`SELECT 1 FROM notifications WHERE account_id = $1 AND title = 'Ticket T-EARLY closed'`, [account.id])).length,
        (n) => n === 1,
      );
      await new Promise((resolve) => setTimeout(resolve, 300)); // its push reaches the hub while the count is held
      goOn();
      const stream = await opening;
      try {
        await stream.next('notification');
        expect(stream.events[0].event).toBe('unread-count');
        expect(stream.events.map((e) => e.event)).toContain('notification');
      } finally {
        stream.close();
      }
    } finally {
      spy.mockRestore();
    }
  });

  it('pushes the new count after a read and after read-all', async () => {
    const account = await createSettledAccount(t);
    await insertNotifications(t, account.id, 2);
    const stream = await open(account);
    try {
      expect((await stream.next('unread-count')).data).toEqual({ count: 3 });
      const [n] = (await request(t.http).get('/api/notifications').set('Authorization', account.bearer)).body.data;
      await request(t.http).post(`/api/notifications/${n.id}/read`).set('Authorization', account.bearer).expect(200);
      // The first count that differs: an unchanged one may be sent again (after LISTEN reconnects, under load).
      expect((await stream.nextWhere('unread-count', (d) => d.count !== 3)).data).toEqual({ count: 2 });
      // Reading it again changes nothing, so nothing is announced.
      const counts = () => stream.events.filter((e) => e.event === 'unread-count').length;
      const before = counts();
      await request(t.http).post(`/api/notifications/${n.id}/read`).set('Authorization', account.bearer).expect(200);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(counts()).toBe(before);
      await request(t.http).post('/api/notifications/read-all').set('Authorization', account.bearer).expect(200);
      expect((await stream.nextWhere('unread-count', (d) => d.count !== 2)).data).toEqual({ count: 0 });
    } finally {
      stream.close();
    }
  });

  it('sends heartbeat comments while idle', async () => {
    const account = await createSettledAccount(t);
    const stream = await open(account);
    try {
      await stream.next('unread-count');
      await new Promise((resolve) => setTimeout(resolve, HEARTBEAT_MS * 4));
      expect(stream.raw().match(/^: heartbeat$/gm)?.length).toBeGreaterThanOrEqual(2);
    } finally {
      stream.close();
    }
  });

  it('frees the listener when the client goes away', async () => {
    const account = await createSettledAccount(t);
    const [a, b] = await Promise.all([open(account), open(account)]);
    await Promise.all([a.next('unread-count'), b.next('unread-count')]);
    expect(hub.listenerCount(account.id)).toBe(2);
    a.close();
    expect(
      await waitFor(
        async () => hub.listenerCount(account.id),
        (n) => n === 1,
      ),
    ).toBe(1);
    emitEvent(t, ticketClosed(account.id, 'T-AFTER'));
    // The factory key's notification is visible before its announcement is sent: on a busy
    // machine that announcement reaches the streams after they opened, and is skipped here.
    let next = await b.next('notification');
    while (next.data.type === 'api_key_created') next = await b.next('notification');
    expect(next.data.title).toBe('Ticket T-AFTER closed');
    b.close();
    expect(
      await waitFor(
        async () => hub.listenerCount(account.id),
        (n) => n === 0,
      ),
    ).toBe(0);
  });

  it('is open to a read-only API key and closed without a token', async () => {
    const reader = await createSettledAccount(t, { scopes: ['read'] });
    const stream = await open(reader);
    try {
      expect((await stream.next('unread-count')).data).toEqual({ count: 1 });
    } finally {
      stream.close();
    }
    const res = await request(t.http).get('/api/notifications/stream');
    expect(res.status).toBe(401);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  });
});

describe('Notification streams at shutdown', () => {
  it('ends open streams with a reconnect hint and releases the LISTEN session', async () => {
    const t = await startTestApp();
    const hub = t.app.get(NotificationHub);
    const account = await createSettledAccount(t);
    const streams = await Promise.all([
      openSse(t.http, '/api/notifications/stream', account.keyBearer),
      openSse(t.http, '/api/notifications/stream', account.bearer),
    ]);
    await Promise.all(streams.map((s) => s.next('unread-count')));
    const pid = hub.listenerBackendPid;
    if (TEST_DATABASE_URL) expect(pid).toEqual(expect.any(Number));

    await t.close();
    await Promise.all(streams.map(closed));
    for (const stream of streams) expect(stream.raw()).toMatch(/retry: \d+\nevent: shutdown\ndata: \{\}\n\n$/);
    expect(hub.listenerCount()).toBe(0);
    expect(hub.listenerBackendPid).toBeNull();

    if (TEST_DATABASE_URL) {
      const { Client } = await import('pg');
      const admin = new Client({ connectionString: TEST_DATABASE_URL });
      await admin.connect();
      try {
        const alive = async () => (await admin.query('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [pid])).rowCount;
        expect(await waitFor(alive, (n) => n === 0)).toBe(0);
      } finally {
        await admin.end();
      }
    }
  });
});

describe('Notification streams end with their credential, and are bounded (issue 17, findings 2 and 3)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({
      NOTIFICATIONS_MAX_STREAMS_PER_ACCOUNT: '2',
      NOTIFICATIONS_MAX_STREAMS_PER_IP: '4',
      NOTIFICATIONS_STREAM_MAX_SECONDS: '3',
    });
  });
  afterAll(() => t.close());

  const open = (bearer: string) => openSse(t.http, '/api/notifications/stream', bearer);
  const lastEvent = async (stream: SseClient) => {
    await closed(stream);
    return stream.events[stream.events.length - 1];
  };

  it("ends a stream when its API key is revoked, and keeps the account's other streams", async () => {
    const account = await createSettledAccount(t);
    const [byKey, byToken] = await Promise.all([open(account.keyBearer), open(account.bearer)]);
    await Promise.all([byKey.next('unread-count'), byToken.next('unread-count')]);
    await request(t.http).delete(`/api/auth/api-keys/${account.apiKeyId}`).set('Authorization', account.bearer).expect(204);
    expect(await lastEvent(byKey)).toEqual({ event: 'error', data: { code: 'unauthorized', detail: expect.any(String) } });
    expect(byToken.response.destroyed || byToken.response.complete).toBe(false);
    byToken.close();
  });

  it('ends a stream at logout, and the streams of other sessions at a password change', async () => {
    const account = await createSettledAccount(t);
    const login = await request(t.http).post('/api/auth/login').send({ email: account.email, password: account.password }).expect(200);
    const other = await open(account.bearer);
    await other.next('unread-count');
    await request(t.http)
      .post('/api/auth/password')
      .set('Authorization', `Bearer ${login.body.accessToken}`)
      .send({ currentPassword: account.password, newPassword: 'another long passphrase' })
      .expect(204);
    expect((await lastEvent(other)).data.code).toBe('unauthorized');

    const mine = await open(`Bearer ${login.body.accessToken}`);
    await mine.next('unread-count');
    await request(t.http).post('/api/auth/logout').set('Authorization', `Bearer ${login.body.accessToken}`).expect(204);
    expect((await lastEvent(mine)).data.code).toBe('unauthorized');
  });

  it('ends the stream of a session revoked from the sessions list, and keeps the current one', async () => {
    const account = await createSettledAccount(t);
    const login = await request(t.http).post('/api/auth/login').send({ email: account.email, password: account.password }).expect(200);
    const { sid } = JSON.parse(Buffer.from(account.accessToken.split('.')[1], 'base64url').toString()) as { sid: string };
    const [revokedOne, current] = await Promise.all([open(account.bearer), open(`Bearer ${login.body.accessToken}`)]);
    await Promise.all([revokedOne.next('unread-count'), current.next('unread-count')]);
    await request(t.http).delete(`/api/auth/sessions/${sid}`).set('Authorization', `Bearer ${login.body.accessToken}`).expect(204);
    expect((await lastEvent(revokedOne)).data.code).toBe('unauthorized');
    expect(current.response.destroyed || current.response.complete).toBe(false);
    current.close();
  });

  it("never outlives its access token's expiry", async () => {
    const account = await createSettledAccount(t);
    const { sub, sid } = JSON.parse(Buffer.from(account.accessToken.split('.')[1], 'base64url').toString()) as { sub: string; sid: string };
    const shortLived = sign({ sid, typ: 'access' }, t.config.jwtSecret, { subject: sub, issuer: 'hosting-account-api', expiresIn: 2 });
    const stream = await open(`Bearer ${shortLived}`);
    await stream.next('unread-count');
    // unauthorized, not the reconnect event that ends a stream at its own lifetime (hours).
    expect((await lastEvent(stream)).data.code).toBe('unauthorized');
  });

  it('ends a stream after its maximum lifetime with a reconnect event', async () => {
    const account = await createSettledAccount(t);
    const stream = await open(account.keyBearer);
    await stream.next('unread-count');
    expect(await lastEvent(stream)).toEqual({ event: 'reconnect', data: { reason: 'max_lifetime' } });
  });

  it('keeps at most NOTIFICATIONS_MAX_STREAMS_PER_ACCOUNT streams (the oldest ends) and refuses past the per-IP cap with 429', async () => {
    const [a, b, c] = await Promise.all([createSettledAccount(t), createSettledAccount(t), createSettledAccount(t)]);
    const first = await open(a.keyBearer);
    await first.next('unread-count');
    const more = [await open(a.keyBearer), await open(a.bearer)];
    await Promise.all(more.map((s) => s.next('unread-count')));
    expect((await lastEvent(first)).data.code).toBe('too_many_streams');
    const theirs = [await open(b.keyBearer), await open(b.bearer)];
    await Promise.all(theirs.map((s) => s.next('unread-count')));
    const refused = await request(t.http).get('/api/notifications/stream').set('Authorization', c.keyBearer);
    expect(refused.status).toBe(429);
    expect(refused.body.code).toBe('rate_limited');
    [...more, ...theirs].forEach((s) => s.close());
  });
});
