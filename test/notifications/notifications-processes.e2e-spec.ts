import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { domainEvent } from '@app/core';
import { NotificationHub } from '@app/notifications';
import { createSettledAccount, emitEvent, waitFor } from '../factories/notifications';
import { SERVER } from '../support/run-cli';
import { ServerProcess, startServerProcess } from '../support/server-process';
import { openSse, SseClient, SseEvent } from '../support/sse';
import { startTestApp, TestApp, startTwoApps, TwoApps } from '../support/test-app';
import { TEST_DATABASE_URL } from '../support/test-env';

/** The next notification whose title is `title` (the account's other notifications may come first). */
async function notificationTitled(stream: SseClient, title: string): Promise<SseEvent> {
  for (;;) {
    const event = await stream.next('notification', 10_000);
    if (event.data.title === title) return event;
  }
}
const ticketClosed = (accountId: string, reference: string) =>
  domainEvent('ticket.closed', accountId, { ticketId: randomUUID(), reference, subject: 'across processes' });
const addressOf = (url: string) => () => ({ port: Number(new URL(url).port), address: '127.0.0.1', family: 'IPv4' }) as AddressInfo;

// Several API processes share one database only on PostgreSQL.
(TEST_DATABASE_URL ? describe : describe.skip)('Notification streams across API processes (PostgreSQL)', () => {
  let a: TestApp;
  let b: TestApp;
  let apps: TwoApps;
  beforeAll(async () => ({ a, b } = apps = await startTwoApps()));
  afterAll(() => apps.close());

  it('delivers a notification made by one process to a stream held by another, each way', async () => {
    const account = await createSettledAccount(a);
    const onA = await openSse(a.http, '/api/notifications/stream', account.keyBearer);
    const onB = await openSse(b.http, '/api/notifications/stream', account.bearer);
    try {
      await Promise.all([onA.next('unread-count'), onB.next('unread-count')]);
      emitEvent(b, ticketClosed(account.id, 'T-FROM-B'));
      expect((await notificationTitled(onA, 'Ticket T-FROM-B closed')).data).toMatchObject({ type: 'ticket_closed', readAt: null });
      await request(a.http).post('/api/auth/api-keys').set('Authorization', account.bearer).send({ name: 'made on A' }).expect(201);
      expect((await notificationTitled(onB, 'API key "made on A" created')).data.type).toBe('api_key_created');
      // A read on B changes the count shown by the stream on A.
      await request(b.http).post('/api/notifications/read-all').set('Authorization', account.bearer).expect(200);
      expect(
        await waitFor(
          async () => onA.events.filter((e) => e.event === 'unread-count').pop()?.data.count,
          (n) => n === 0,
        ),
      ).toBe(0);
    } finally {
      onA.close();
      onB.close();
    }
  });

  it('ends a stream held by one process when its API key is revoked on another (issue 17, finding 2)', async () => {
    const account = await createSettledAccount(a);
    const onA = await openSse(a.http, '/api/notifications/stream', account.keyBearer);
    await onA.next('unread-count');
    await request(b.http).delete(`/api/auth/api-keys/${account.apiKeyId}`).set('Authorization', account.bearer).expect(204);
    expect((await onA.next('error', 10_000)).data.code).toBe('unauthorized');
    onA.close();
  });

  it('comes back after its LISTEN session is killed, and resends the count', async () => {
    const hub = a.app.get(NotificationHub);
    const account = await createSettledAccount(a);
    const stream = await openSse(a.http, '/api/notifications/stream', account.keyBearer);
    try {
      await stream.next('unread-count');
      const pid = hub.listenerBackendPid;
      expect(pid).toEqual(expect.any(Number));
      await b.db.query('SELECT pg_terminate_backend($1)', [pid]);
      const newPid = await waitFor(
        async () => hub.listenerBackendPid,
        (p) => p !== null && p !== pid,
        15_000,
      );
      expect(newPid).not.toBe(pid);
      expect(newPid).toEqual(expect.any(Number));
      expect((await stream.next('unread-count', 5000)).data).toEqual({ count: 1 });
      emitEvent(b, ticketClosed(account.id, 'T-AFTER-RECONNECT'));
      expect((await notificationTitled(stream, 'Ticket T-AFTER-RECONNECT closed')).data.type).toBe('ticket_closed');
    } finally {
      stream.close();
    }
  });
});

// The built server (`npx nest build`) as a separate OS process on the same PostgreSQL database.
(TEST_DATABASE_URL && existsSync(SERVER) ? describe : describe.skip)(
  'Notification streams and a separate server process (PostgreSQL)',
  () => {
    let t: TestApp;
    let server: ServerProcess;
    beforeAll(async () => {
      t = await startTestApp();
      server = await startServerProcess({ NOTIFICATIONS_HEARTBEAT_MS: '200' });
    }, 60_000);
    afterAll(async () => {
      await server?.stop();
      await t.close();
    });

    it('reaches a stream held by the server process, and the server reaches ours', async () => {
      const account = await createSettledAccount(t);
      const remote = await openSse({ address: addressOf(server.url) }, '/api/notifications/stream', account.keyBearer);
      const local = await openSse(t.http, '/api/notifications/stream', account.bearer);
      try {
        expect((await remote.next('unread-count')).data).toEqual({ count: 1 });
        await local.next('unread-count');
        emitEvent(t, ticketClosed(account.id, 'T-TO-SERVER'));
        expect((await notificationTitled(remote, 'Ticket T-TO-SERVER closed')).data.type).toBe('ticket_closed');
        await request(server.url)
          .post('/api/auth/api-keys')
          .set('Authorization', account.bearer)
          .send({ name: 'made by the server' })
          .expect(201);
        expect((await notificationTitled(local, 'API key "made by the server" created')).data.type).toBe('api_key_created');
        expect(
          await waitFor(
            async () => remote.raw(),
            (raw) => /^: heartbeat$/m.test(raw),
            3000,
          ),
        ).toMatch(/^: heartbeat$/m);
      } finally {
        remote.close();
        local.close();
      }
    });

    it('ends its streams with a reconnect hint on SIGTERM and exits cleanly', async () => {
      const account = await createSettledAccount(t);
      const remote = await openSse({ address: addressOf(server.url) }, '/api/notifications/stream', account.keyBearer);
      await remote.next('unread-count');
      const ended = new Promise<void>((resolve) => remote.response.once('end', resolve));
      const code = await server.stop('SIGTERM');
      await ended;
      expect(code).toBe(0);
      expect(remote.raw()).toMatch(/retry: \d+\nevent: shutdown\ndata: \{\}\n\n$/);
    });
  },
);
