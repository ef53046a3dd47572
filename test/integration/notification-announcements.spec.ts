import { randomUUID } from 'node:crypto';
import type { Pool } from 'pg';
import { DataSource } from 'typeorm';
import { PgListener } from '@app/core';
import { driverPool } from '@app/core/database/statement';
import { NotificationsModule, NotificationsService } from '@app/notifications';
import { startTestModule, TestModule } from '../support/test-module';
import { TEST_DATABASE_URL } from '../support/test-env';
import { waitFor } from '../support/wait-for';

const onPostgres = Boolean(TEST_DATABASE_URL);
const CHANNEL = 'account_notifications';

/**
 * What another API process hears of a notification (its hub LISTENs on account_notifications), when
 * every statement after the one that made it fails: the soak's starved hour lost notifications from
 * open streams because the announcement was a second statement after the insert had committed.
 */
(onPostgres ? describe : describe.skip)('Notification announcements between processes (real PostgreSQL)', () => {
  let m: TestModule;
  let listener: PgListener;
  const heard: { accountId: string; notificationId: string | null }[] = [];
  /**
   * Set by a test: once a statement of this kind ran, every other statement fails, as under a
   * statement timeout (statements of the kind itself still run).
   */
  let failAfter: RegExp | null = null;
  let seen = false;
  afterEach(() => {
    failAfter = null;
    seen = false;
  });

  beforeAll(async () => {
    m = await startTestModule([NotificationsModule]);
    listener = new PgListener(TEST_DATABASE_URL!, CHANNEL, { message: (p) => heard.push(JSON.parse(p)), resumed: () => undefined });
    await listener.start();
    const dataSource = m.get(DataSource);
    const pool = driverPool(dataSource) as Pool;
    const failing =
      <F extends (...args: any[]) => any>(run: F) =>
      (...args: Parameters<F>) => {
        const text = typeof args[0] === 'string' ? args[0] : (args[0] as { text: string }).text;
        const ofTheKind = failAfter?.test(text) ?? false;
        if (failAfter && seen && !ofTheKind) return Promise.reject(new Error('canceling statement due to statement timeout'));
        if (ofTheKind) seen = true;
        return run(...args);
      };
    const poolQuery = pool.query.bind(pool) as (...args: unknown[]) => Promise<unknown>;
    (pool as unknown as { query: unknown }).query = failing(poolQuery);
    const dsQuery = dataSource.query.bind(dataSource);
    dataSource.query = failing(dsQuery) as typeof dataSource.query;
  });

  afterAll(async () => {
    await listener?.stop();
    await m?.close();
  });

  const event = (accountId: string) => ({
    name: 'ticket.closed' as const,
    accountId,
    occurredAt: new Date(),
    payload: { ticketId: randomUUID(), reference: 'T-000001', subject: 'Disk full' },
  });

  it('a notification made is announced by the statement that made it, even when the next statement would fail', async () => {
    const accountId = await m.accountId();
    failAfter = /INSERT INTO notifications/;
    const made = await m.get(NotificationsService).record(event(accountId) as never);
    expect(made).toMatchObject({ type: 'ticket_closed' });
    const got = await waitFor(
      async () => heard.filter((h) => h.accountId === accountId),
      (h) => h.length > 0,
      10_000,
    );
    expect(got).toEqual([{ accountId, notificationId: made!.id }]);
  });

  it('a read, and a read of all, announce the new count by their own statement; a repeated read announces nothing', async () => {
    const accountId = await m.accountId();
    const service = m.get(NotificationsService);
    const first = await service.record(event(accountId) as never);
    await service.record(event(accountId) as never);
    await waitFor(
      async () => heard.filter((h) => h.accountId === accountId).length,
      (n) => n === 2,
      10_000,
    );
    failAfter = /UPDATE notifications/;
    await service.markRead(accountId, first!.id);
    await service.markRead(accountId, first!.id);
    await service.markAllRead(accountId);
    await service.markAllRead(accountId);
    const counts = await waitFor(
      async () => heard.filter((h) => h.accountId === accountId && h.notificationId === null),
      (h) => h.length >= 2,
      10_000,
    );
    await listener.roundTrip();
    expect(heard.filter((h) => h.accountId === accountId && h.notificationId === null)).toEqual(counts);
    expect(counts).toEqual([
      { accountId, notificationId: null },
      { accountId, notificationId: null },
    ]);
  });
});
