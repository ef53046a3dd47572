import { EventEmitter2 } from '@nestjs/event-emitter';
import request from 'supertest';
import type { DomainEvent } from '@app/core';
import type { NotificationResponse } from '../../libs/notifications/src/dto/notification.response';
import { TestApp } from '../support/test-app';
import { createAccount, TestAccount } from './accounts';

import { waitFor } from '../support/wait-for';

export { waitFor };

/** Emits a domain event as the owning module does after its commit; resolves when its listeners are done. */
export function emitEvent(t: TestApp, event: DomainEvent): Promise<unknown[]> {
  return t.app.get(EventEmitter2).emitAsync(event.name, event);
}

/** A notification as the API returns it. */
export type NotificationRow = NotificationResponse;

/** The account's notifications, newest first (up to 100), through the API. */
export async function notificationsOf(t: TestApp, account: TestAccount): Promise<NotificationRow[]> {
  const res = await request(t.http).get('/api/notifications?pageSize=100').set('Authorization', account.bearer).expect(200);
  return res.body.data;
}

export async function unreadCountOf(t: TestApp, account: TestAccount): Promise<number> {
  return (await request(t.http).get('/api/notifications/unread-count').set('Authorization', account.bearer).expect(200)).body.count;
}

/**
 * A fresh account whose own "API key created" notification (its factory key) has arrived, so
 * tests count from a known state: one unread notification.
 */
export async function createSettledAccount(t: TestApp, options: Parameters<typeof createAccount>[1] = {}): Promise<TestAccount> {
  const account = await createAccount(t, options);
  const count = await waitFor(
    () => unreadCountOf(t, account),
    (n) => n === 1,
  );
  if (count !== 1) throw new Error(`expected the key-created notification, unread count is ${count}`);
  return account;
}

/** Inserts notifications directly (bulk data for paging, counting and concurrency tests). */
export async function insertNotifications(
  t: TestApp,
  accountId: string,
  count: number,
  options: { read?: boolean; type?: string } = {},
): Promise<void> {
  await t.db.query(
    `INSERT INTO notifications (account_id, type, severity, title, body, read_at, created_at)
     SELECT $1, $2, 'info', 'Bulk ' || g, 'Made by a test.', CASE WHEN $3 THEN now() END, now() - g * interval '1 millisecond'
       FROM generate_series(1, $4::int) AS g`,
    [accountId, options.type ?? 'ticket_closed', options.read ?? false, count],
  );
}
