import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { ApiKeyExpiryJob } from '@app/api-keys';
import { domainEvent } from '@app/core';
import { NotificationsDemoSeeder } from '@app/notifications';
import { createService } from '../factories/services';
import { TestAccount } from '../factories/accounts';
import {
  createSettledAccount,
  emitEvent,
  insertNotifications,
  NotificationRow,
  notificationsOf,
  unreadCountOf,
  waitFor,
} from '../factories/notifications';
import { sharedTestApp, TestApp } from '../support/test-app';

const settle = () => new Promise((resolve) => setTimeout(resolve, 300));

describe('Notifications', () => {
  let t: TestApp;
  let stranger: TestAccount;
  beforeAll(async () => {
    t = await sharedTestApp();
    stranger = await createSettledAccount(t);
  });

  const list = (account: TestAccount, query = '', bearer = account.keyBearer) =>
    request(t.http).get(`/api/notifications${query}`).set('Authorization', bearer);
  const strangerIds = async () => (await notificationsOf(t, stranger)).map((n) => n.id);

  describe('made from domain events', () => {
    const ticketId = randomUUID();
    const serviceId = randomUUID();
    const actionId = randomUUID();
    const cases: [string, (accountId: string) => Promise<unknown>, Partial<NotificationRow>][] = [
      [
        'ticket.replied by staff',
        (id) =>
          emitEvent(
            t,
            domainEvent('ticket.replied', id, {
              ticketId,
              reference: 'T-000042',
              subject: 'Disk full',
              messageId: randomUUID(),
              author: 'staff',
            }),
          ),
        {
          type: 'ticket_replied',
          severity: 'info',
          title: 'Support replied to T-000042',
          link: `/api/support/tickets/${ticketId}`,
          entity: { type: 'ticket', id: ticketId },
        },
      ],
      [
        'ticket.closed',
        (id) => emitEvent(t, domainEvent('ticket.closed', id, { ticketId, reference: 'T-000042', subject: 'Disk full' })),
        {
          type: 'ticket_closed',
          severity: 'info',
          title: 'Ticket T-000042 closed',
          link: `/api/support/tickets/${ticketId}`,
          entity: { type: 'ticket', id: ticketId },
        },
      ],
      [
        'instance.action_succeeded',
        (id) =>
          emitEvent(
            t,
            domainEvent('instance.action_succeeded', id, { serviceId, serviceName: 'web-1', actionId, type: 'reboot', error: null }),
          ),
        {
          type: 'instance_action_succeeded',
          severity: 'info',
          title: 'web-1 rebooted',
          link: `/api/services/${serviceId}/instance/actions/${actionId}`,
          entity: { type: 'service', id: serviceId },
        },
      ],
      [
        'instance.action_failed',
        (id) =>
          emitEvent(
            t,
            domainEvent('instance.action_failed', id, {
              serviceId,
              serviceName: 'web-1',
              actionId,
              type: 'start',
              error: { code: 'no_capacity', message: 'no capacity' },
            }),
          ),
        {
          type: 'instance_action_failed',
          severity: 'warning',
          title: 'web-1: start failed',
          body: 'The start action on web-1 failed: no capacity.',
        },
      ],
      [
        'service.status_changed',
        (id) =>
          emitEvent(
            t,
            domainEvent('service.status_changed', id, {
              serviceId,
              serviceName: 'web-1',
              from: 'active',
              to: 'suspended',
              reason: 'invoice overdue',
            }),
          ),
        {
          type: 'service_status_changed',
          severity: 'critical',
          title: 'web-1 is now suspended',
          link: `/api/services/${serviceId}`,
          entity: { type: 'service', id: serviceId },
        },
      ],
      [
        'api_key.created',
        (id) => emitEvent(t, domainEvent('api_key.created', id, { apiKeyId: actionId, name: 'deploy', prefix: 'hpk_abcdefgh' })),
        {
          type: 'api_key_created',
          severity: 'info',
          title: 'API key "deploy" created',
          link: `/api/auth/api-keys/${actionId}`,
          entity: { type: 'api_key', id: actionId },
        },
      ],
      [
        'api_key.expiring',
        (id) =>
          emitEvent(
            t,
            domainEvent('api_key.expiring', id, {
              apiKeyId: actionId,
              name: 'deploy',
              prefix: 'hpk_abcdefgh',
              expiresAt: '2030-01-01T00:00:00.000Z',
            }),
          ),
        {
          type: 'api_key_expiring',
          severity: 'warning',
          title: 'API key "deploy" expires soon',
          entity: { type: 'api_key', id: actionId },
        },
      ],
    ];

    it.each(cases)('%s notifies its account only', async (_name, emit, expected) => {
      const account = await createSettledAccount(t);
      const strangerBefore = await strangerIds();
      await emit(account.id);
      const rows = await notificationsOf(t, account);
      expect(rows).toHaveLength(2);
      expect(rows[0]).toEqual({
        id: expect.any(String),
        type: expected.type,
        severity: expected.severity,
        title: expected.title,
        body: expect.any(String),
        link: expect.any(String),
        entity: expect.anything(),
        readAt: null,
        createdAt: expect.any(String),
      });
      expect(rows[0]).toMatchObject(expected);
      expect(await strangerIds()).toEqual(strangerBefore);
    });

    it('ignores customer replies (only staff replies are news)', async () => {
      const account = await createSettledAccount(t);
      await emitEvent(
        t,
        domainEvent('ticket.replied', account.id, {
          ticketId,
          reference: 'T-1',
          subject: 's',
          messageId: randomUUID(),
          author: 'customer',
        }),
      );
      expect(await unreadCountOf(t, account)).toBe(1);
    });

    it('notifies when an API key is created through the API', async () => {
      const account = await createSettledAccount(t);
      const key = await request(t.http)
        .post('/api/auth/api-keys')
        .set('Authorization', account.bearer)
        .send({ name: 'made over HTTP' })
        .expect(201);
      const rows = await waitFor(
        () => notificationsOf(t, account),
        (ns) => ns.length === 2,
      );
      expect(rows[0]).toMatchObject({
        type: 'api_key_created',
        title: 'API key "made over HTTP" created',
        link: `/api/auth/api-keys/${key.body.id}`,
        entity: { type: 'api_key', id: key.body.id },
      });
      expect(rows[0].body).toContain(key.body.prefix);
      expect(rows[0].body).not.toContain(key.body.key);
    });

    it('notifies when a real instance action finishes', async () => {
      const account = await createSettledAccount(t);
      const vps = await createService(t, account.id, { powerState: 'stopped' });
      await request(t.http).post(`/api/services/${vps.id}/instance/start`).set('Authorization', account.keyBearer).expect(202);
      const rows = await waitFor(
        () => notificationsOf(t, account),
        (ns) => ns.some((n) => n.type === 'instance_action_succeeded'),
      );
      expect(rows.find((n) => n.type === 'instance_action_succeeded')).toMatchObject({ entity: { type: 'service', id: vps.id } });
    });

    it('announces keys expiring within 7 days once per key, not revoked or later ones', async () => {
      const account = await createSettledAccount(t);
      const inDays = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString();
      const create = (name: string, expiresAt: string) =>
        request(t.http).post('/api/auth/api-keys').set('Authorization', account.bearer).send({ name, expiresAt }).expect(201);
      const soon = await create('three days', inDays(3));
      await create('thirty days', inDays(30));
      const revoked = await create('revoked', inDays(2));
      await request(t.http).delete(`/api/auth/api-keys/${revoked.body.id}`).set('Authorization', account.bearer).expect(204);
      await waitFor(
        () => unreadCountOf(t, account),
        (n) => n === 4,
      );
      const strangerBefore = await strangerIds();

      const scanner = t.app.get(ApiKeyExpiryJob);
      await scanner.scan();
      await scanner.scan();
      const rows = await waitFor(
        () => notificationsOf(t, account),
        (ns) => ns.some((n) => n.type === 'api_key_expiring'),
      );
      await settle();
      await scanner.scan();
      await settle();
      const expiring = (await notificationsOf(t, account)).filter((n) => n.type === 'api_key_expiring');
      expect(expiring).toHaveLength(1);
      expect(expiring[0]).toMatchObject({
        severity: 'warning',
        title: 'API key "three days" expires soon',
        entity: { type: 'api_key', id: soon.body.id },
      });
      expect(rows.filter((n) => n.type === 'api_key_expiring')).toHaveLength(1);
      expect(await strangerIds()).toEqual(strangerBefore);
    });
  });

  describe('reading', () => {
    it('lists newest first, paginated, filtered by read state', async () => {
      const account = await createSettledAccount(t);
      await insertNotifications(t, account.id, 14, { read: true });
      await insertNotifications(t, account.id, 10);
      const page1 = await list(account, '?pageSize=10');
      expect(page1.status).toBe(200);
      expect(page1.body).toMatchObject({ page: 1, pageSize: 10, total: 25, totalPages: 3 });
      const all = [
        ...page1.body.data,
        ...(await list(account, '?page=2&pageSize=10')).body.data,
        ...(await list(account, '?page=3&pageSize=10')).body.data,
      ];
      expect(new Set(all.map((n) => n.id)).size).toBe(25);
      const times = all.map((n) => n.createdAt);
      expect([...times].sort().reverse()).toEqual(times);
      const unread = await list(account, '?unread=true&pageSize=100', account.bearer);
      expect(unread.body.total).toBe(11);
      expect(unread.body.data.every((n: NotificationRow) => n.readAt === null)).toBe(true);
      const read = await list(account, '?unread=false&pageSize=100');
      expect(read.body.total).toBe(14);
      expect(read.body.data.every((n: NotificationRow) => n.readAt !== null)).toBe(true);
    });

    it('gets one and marks it read idempotently, with an access token and with an API key', async () => {
      const account = await createSettledAccount(t);
      await insertNotifications(t, account.id, 2);
      const [first, second] = (await list(account)).body.data;
      for (const [n, bearer] of [
        [first, account.bearer],
        [second, account.keyBearer],
      ] as const) {
        const got = await request(t.http).get(`/api/notifications/${n.id}`).set('Authorization', bearer);
        expect(got.status).toBe(200);
        expect(got.body).toEqual(n);
        const read = await request(t.http).post(`/api/notifications/${n.id}/read`).set('Authorization', bearer);
        expect(read.status).toBe(200);
        expect(read.body).toEqual({ ...n, readAt: expect.any(String) });
        const again = await request(t.http).post(`/api/notifications/${n.id}/read`).set('Authorization', bearer);
        expect(again.status).toBe(200);
        expect(again.body.readAt).toBe(read.body.readAt);
      }
      expect(await unreadCountOf(t, account)).toBe(1);
    });

    it('keeps the first readAt under 10 concurrent reads of one notification', async () => {
      const account = await createSettledAccount(t);
      const [n] = (await list(account)).body.data;
      const results = await Promise.all(
        Array.from({ length: 10 }, () => request(t.http).post(`/api/notifications/${n.id}/read`).set('Authorization', account.keyBearer)),
      );
      expect(results.every((r) => r.status === 200)).toBe(true);
      expect(new Set(results.map((r) => r.body.readAt)).size).toBe(1);
    });

    it('counts unread with an access token and with an API key', async () => {
      const account = await createSettledAccount(t);
      await insertNotifications(t, account.id, 3);
      await insertNotifications(t, account.id, 5, { read: true });
      for (const bearer of [account.bearer, account.keyBearer]) {
        const res = await request(t.http).get('/api/notifications/unread-count').set('Authorization', bearer);
        expect(res.status).toBe(200);
        expect(res.body).toEqual({ count: 4 });
      }
    });

    it('marks all read (200 {updated}) with an access token and with an API key', async () => {
      const account = await createSettledAccount(t);
      await insertNotifications(t, account.id, 4);
      const first = await request(t.http).post('/api/notifications/read-all').set('Authorization', account.bearer);
      expect(first.status).toBe(200);
      expect(first.body).toEqual({ updated: 5 });
      await insertNotifications(t, account.id, 2);
      const second = await request(t.http).post('/api/notifications/read-all').set('Authorization', account.keyBearer);
      expect(second.body).toEqual({ updated: 2 });
      expect(await unreadCountOf(t, account)).toBe(0);
      expect(await unreadCountOf(t, stranger)).toBe(1);
      expect((await list(account, '?unread=true')).body.total).toBe(0);
      expect((await list(account, '?unread=false')).body.total).toBe(7);
    });

    it('marks all read exactly once under 20 concurrent read-alls', async () => {
      const account = await createSettledAccount(t);
      await insertNotifications(t, account.id, 50);
      const results = await Promise.all(
        Array.from({ length: 20 }, () => request(t.http).post('/api/notifications/read-all').set('Authorization', account.keyBearer)),
      );
      expect(results.map((r) => r.status)).toEqual(Array(20).fill(200));
      expect(results.reduce((sum, r) => sum + r.body.updated, 0)).toBe(51);
      expect(await unreadCountOf(t, account)).toBe(0);
      expect((await request(t.http).post('/api/notifications/read-all').set('Authorization', account.bearer)).body).toEqual({ updated: 0 });
    });

    it('stays consistent when read-alls race with new notifications', async () => {
      const account = await createSettledAccount(t);
      const inserts = Array.from({ length: 40 }, () => insertNotifications(t, account.id, 1));
      const readAlls = Array.from({ length: 20 }, () =>
        request(t.http).post('/api/notifications/read-all').set('Authorization', account.keyBearer),
      );
      const [, results] = await Promise.all([Promise.all(inserts), Promise.all(readAlls)]);
      expect(results.every((r) => r.status === 200)).toBe(true);
      const marked = results.reduce((sum, r) => sum + r.body.updated, 0);
      // Each row was marked by at most one call; the rest are still unread.
      expect(marked + (await unreadCountOf(t, account))).toBe(41);
      const [{ unread, read }] = await t.db.query(
        `SELECT count(*) FILTER (WHERE read_at IS NULL)::int AS unread, count(*) FILTER (WHERE read_at IS NOT NULL)::int AS read FROM notifications WHERE account_id = $1`,
        [account.id],
      );
      expect(read).toBe(marked);
      expect(unread + read).toBe(41);
      // The list's totals (trigger-kept counters) agree with the rows.
      expect((await list(account, '?pageSize=1')).body.total).toBe(41);
      expect((await list(account, '?unread=true&pageSize=1')).body.total).toBe(unread);
      expect((await list(account, '?unread=false&pageSize=1')).body.total).toBe(read);
    });
  });

  it('seeds demo data: unread and read notifications', async () => {
    const account = await createSettledAccount(t);
    await t.app.get(DataSource).transaction((manager) => t.app.get(NotificationsDemoSeeder).seed({ accountId: account.id, manager }));
    const rows = await notificationsOf(t, account);
    expect(rows).toHaveLength(5);
    expect(
      rows
        .filter((n) => n.readAt === null)
        .map((n) => n.type)
        .sort(),
    ).toEqual(['api_key_created', 'service_status_changed', 'ticket_replied']);
    expect(rows.filter((n) => n.readAt !== null)).toHaveLength(2);
    expect(await unreadCountOf(t, account)).toBe(3);
  });

  describe('access', () => {
    it("answers 404 for another account's notification on every route, with either credential, and leaves it unread", async () => {
      const account = await createSettledAccount(t);
      const [theirs] = await notificationsOf(t, account);
      for (const bearer of [stranger.bearer, stranger.keyBearer]) {
        for (const call of [
          () => request(t.http).get(`/api/notifications/${theirs.id}`),
          () => request(t.http).post(`/api/notifications/${theirs.id}/read`),
        ]) {
          const res = await call().set('Authorization', bearer);
          expect(res.status).toBe(404);
          expect(res.body.code).toBe('not_found');
        }
      }
      const missing = await request(t.http).get(`/api/notifications/${randomUUID()}`).set('Authorization', stranger.bearer);
      expect(missing.status).toBe(404);
      expect((await request(t.http).get(`/api/notifications/${theirs.id}`).set('Authorization', account.bearer)).body.readAt).toBeNull();
      const other = await createSettledAccount(t);
      expect((await request(t.http).post('/api/notifications/read-all').set('Authorization', other.bearer)).body).toEqual({ updated: 1 });
      expect(await unreadCountOf(t, account)).toBe(1);
    });

    it('answers 401 without a token on every route', async () => {
      const id = randomUUID();
      for (const call of [
        request(t.http).get('/api/notifications'),
        request(t.http).get('/api/notifications/unread-count'),
        request(t.http).get('/api/notifications/stream'),
        request(t.http).get(`/api/notifications/${id}`),
        request(t.http).post('/api/notifications/read-all'),
        request(t.http).post(`/api/notifications/${id}/read`),
      ]) {
        const res = await call;
        expect(res.status).toBe(401);
        expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
      }
      await request(t.http).get('/api/notifications').set('Authorization', 'Bearer hpk_notAValidKey').expect(401);
    });

    it('answers 400 for bad input', async () => {
      const account = await createSettledAccount(t);
      for (const query of ['?unread=maybe', '?unread=', '?pageSize=0', '?pageSize=101', '?page=abc', '?page=1.5', '?other=1']) {
        const res = await list(account, query);
        expect(res.status).toBe(400);
        expect(res.body.code).toBe('invalid_input');
      }
      await request(t.http).get('/api/notifications/123').set('Authorization', account.bearer).expect(400);
      await request(t.http).post('/api/notifications/123/read').set('Authorization', account.bearer).expect(400);
      expect(await unreadCountOf(t, account)).toBe(1);
    });

    it('lets a read-only API key read but not mark read (403)', async () => {
      const reader = await createSettledAccount(t, { scopes: ['read'] });
      const [n] = await notificationsOf(t, reader);
      await request(t.http).get('/api/notifications').set('Authorization', reader.keyBearer).expect(200);
      await request(t.http).get('/api/notifications/unread-count').set('Authorization', reader.keyBearer).expect(200);
      await request(t.http).get(`/api/notifications/${n.id}`).set('Authorization', reader.keyBearer).expect(200);
      for (const call of [request(t.http).post('/api/notifications/read-all'), request(t.http).post(`/api/notifications/${n.id}/read`)]) {
        const res = await call.set('Authorization', reader.keyBearer);
        expect(res.status).toBe(403);
        expect(res.body.code).toBe('insufficient_scope');
      }
      expect(await unreadCountOf(t, reader)).toBe(1);
    });
  });
});
