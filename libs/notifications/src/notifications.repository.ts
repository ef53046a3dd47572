import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { PageQuery, pageOfRows, pgNotify, poolQuery, RowsPage, runSql, sqlFirst } from '@app/core';
import { NewNotification, NotificationRow } from './notification.types';

/** A demo notification: `age` is a PostgreSQL interval ('2 hours'). */
export interface DemoNotification {
  type: string;
  severity: string;
  title: string;
  body: string;
  read: boolean;
  age: string;
}

const COLUMNS = 'id, type, severity, title, body, link, entity_type, entity_id, read_at, created_at';

/** What a burst of announcements brings one account: its unread count and the announced notifications that are its own. */
export interface AccountNews {
  unread: number;
  notifications: NotificationRow[];
}

/** `pg_notify` of a hub announcement ({ accountId, notificationId }) on the channel parameter `channel`. */
const announcement = (channel: string, accountId: string, notificationId: string) =>
  `pg_notify(${channel}, json_build_object('accountId', ${accountId}, 'notificationId', ${notificationId})::text)`;

/** Raw SQL on the hot paths (unread count, mark read): one statement each, no entity hydration. */
@Injectable()
export class NotificationsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * The notification made and, given `announceOn`, announced to every process's hub by the same
   * statement: PostgreSQL delivers the NOTIFY at its commit, so a notification is never made
   * unannounced (a second statement could fail after the first committed).
   */
  async insert(n: NewNotification, announceOn: string | null): Promise<NotificationRow | null> {
    const row = await sqlFirst<NotificationRow & { announced?: unknown }>(
      this.dataSource,
      `WITH made AS (
         INSERT INTO notifications (account_id, type, severity, title, body, link, entity_type, entity_id)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT DO NOTHING RETURNING ${COLUMNS}, account_id)
       SELECT ${COLUMNS}${announceOn ? `, ${announcement('$9', 'account_id', 'id')} AS announced` : ''} FROM made`,
      [
        n.accountId,
        n.type,
        n.severity,
        n.title,
        n.body,
        n.link,
        n.entity?.type ?? null,
        n.entity?.id ?? null,
        ...(announceOn ? [announceOn] : []),
      ],
    );
    if (!row) return null;
    const { announced: _announced, ...made } = row;
    return made;
  }

  page(accountId: string, query: PageQuery, unread?: boolean): Promise<RowsPage<NotificationRow>> {
    const filter = unread === undefined ? '' : unread ? ' AND read_at IS NULL' : ' AND read_at IS NOT NULL';
    // The total from the trigger-kept counters, not by counting the account's rows.
    const counted = unread === undefined ? '' : unread ? ' AND unread' : ' AND NOT unread';
    return pageOfRows<NotificationRow>(
      this.dataSource,
      {
        table: 'notifications',
        columns: COLUMNS,
        where: `account_id = $1${filter}`,
        params: [accountId],
        totalSql: `SELECT coalesce(sum(n), 0)::int AS total FROM notification_counts WHERE account_id = $1${counted}`,
      },
      query,
    );
  }

  findOne(accountId: string, id: string): Promise<NotificationRow | null> {
    return sqlFirst<NotificationRow>(this.dataSource, `SELECT ${COLUMNS} FROM notifications WHERE id = $1 AND account_id = $2`, [
      id,
      accountId,
    ]);
  }

  async unreadCount(accountId: string): Promise<number> {
    const [{ count }] = await poolQuery<{ count: number }>(
      this.dataSource,
      'SELECT count(*)::int AS count FROM notifications WHERE account_id = $1 AND read_at IS NULL',
      [accountId],
    );
    return Number(count);
  }

  /**
   * One statement for a burst of announcements: every account's unread count (from the
   * partial index) and, in the order announced, those of `notificationIds` that belong to it.
   */
  async news(accountIds: string[], notificationIds: string[]): Promise<Map<string, AccountNews>> {
    const rows = await poolQuery<Partial<NotificationRow> & { account: string; unread: number }>(
      this.dataSource,
      `SELECT a.account, u.unread, ${COLUMNS.split(', ')
        .map((column) => `n.${column}`)
        .join(', ')}
         FROM unnest($1::uuid[]) AS a(account)
        CROSS JOIN LATERAL (SELECT count(*)::int AS unread FROM notifications WHERE account_id = a.account AND read_at IS NULL) u
         LEFT JOIN notifications n ON n.account_id = a.account AND n.id = ANY($2::uuid[])
        ORDER BY a.account, array_position($2::uuid[], n.id)`,
      [accountIds, notificationIds],
    );
    const news = new Map<string, AccountNews>();
    for (const { account, unread, ...notification } of rows) {
      const entry = news.get(account) ?? { unread: Number(unread), notifications: [] };
      if (notification.id) entry.notifications.push(notification as NotificationRow);
      news.set(account, entry);
    }
    return news;
  }

  /**
   * Idempotent: an already read notification keeps its first readAt. `changed` is true when this
   * call did the marking (the new read_at is this transaction's now() only if it was null); only
   * then is the new count announced on `announceOn`, by the same statement.
   */
  async markRead(
    accountId: string,
    id: string,
    announceOn: string | null,
  ): Promise<{ notification: NotificationRow; changed: boolean } | null> {
    const rows = await poolQuery<NotificationRow & { changed: boolean; announced?: unknown }>(
      this.dataSource,
      `WITH marked AS (
         UPDATE notifications SET read_at = COALESCE(read_at, now()) WHERE id = $1 AND account_id = $2
         RETURNING ${COLUMNS}, read_at = now() AS changed)
       SELECT ${COLUMNS}, changed${announceOn ? `, CASE WHEN changed THEN ${announcement('$3', '$2::uuid', 'NULL')} END AS announced` : ''}
         FROM marked`,
      [id, accountId, ...(announceOn ? [announceOn] : [])],
    );
    if (!rows[0]) return null;
    const { changed, announced: _announced, ...notification } = rows[0];
    return { notification, changed };
  }

  /** One statement: concurrent calls and concurrent inserts each see a consistent set; the new count announced on `announceOn` when any was marked. */
  async markAllRead(accountId: string, announceOn: string | null): Promise<number> {
    const [{ n }] = await poolQuery<{ n: number }>(
      this.dataSource,
      `WITH marked AS (UPDATE notifications SET read_at = now() WHERE account_id = $1 AND read_at IS NULL RETURNING 1)
       SELECT count(*)::int AS n${announceOn ? `, CASE WHEN count(*) > 0 THEN ${announcement('$2', '$1::uuid', 'NULL')} END AS announced` : ''}
         FROM marked`,
      [accountId, ...(announceOn ? [announceOn] : [])],
    );
    return Number(n);
  }

  /** NOTIFY on `channel` for every API process's hub (no table; not part of a transaction). */
  notifyProcesses(channel: string, payload: string): Promise<void> {
    return pgNotify(this.dataSource, channel, payload);
  }

  /** Demo data: a notification of some age, read halfway through it or not at all. */
  async insertAged(manager: EntityManager, accountId: string, n: DemoNotification): Promise<void> {
    await runSql(
      manager,
      `INSERT INTO notifications (account_id, type, severity, title, body, read_at, created_at)
       VALUES ($1, $2, $3, $4, $5, CASE WHEN $6 THEN now() - $7::interval / 2 END, now() - $7::interval)`,
      [accountId, n.type, n.severity, n.title, n.body, n.read, n.age],
    );
  }
}
