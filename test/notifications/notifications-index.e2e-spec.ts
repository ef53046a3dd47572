import { NotificationsRepository } from '../../libs/notifications/src/notifications.repository';
import { createSettledAccount } from '../factories/notifications';
import { startTestApp, TestApp } from '../support/test-app';
import { TEST_DATABASE_URL } from '../support/test-env';

/**
 * The hot paths (unread count, unread list) read the partial index of unread rows, not the table:
 * an account with 50,000 notifications, 50 unread (PostgreSQL only: PGlite has no planner statistics to speak of).
 */
(TEST_DATABASE_URL ? describe : describe.skip)('Notifications query plans', () => {
  let t: TestApp;
  let accountId: string;
  beforeAll(async () => {
    // The bulk insert below outlasts the app's 5 s statement timeout on a busy machine.
    t = await startTestApp({ DB_STATEMENT_TIMEOUT_MS: '120000' });
    accountId = (await createSettledAccount(t)).id;
    await t.db.query(
      `INSERT INTO notifications (account_id, type, severity, title, body, read_at, created_at)
       SELECT $1, 'ticket_closed', 'info', 't' || g, 'b', CASE WHEN g % 1000 = 0 THEN NULL ELSE now() END, now() - g * interval '1 second'
         FROM generate_series(1, 50000) AS g`,
      [accountId],
    );
    await t.db.query('ANALYZE notifications');
  }, 120_000);
  afterAll(() => t.close());

  const plan = async (sql: string, params: unknown[]) =>
    ((await t.db.query(`EXPLAIN ${sql}`, params)) as { 'QUERY PLAN': string }[]).map((r) => r['QUERY PLAN']).join('\n');

  it('counts unread notifications from the partial index', async () => {
    const text = await plan('SELECT count(*)::int AS count FROM notifications WHERE account_id = $1 AND read_at IS NULL', [accountId]);
    // A count may read the index as a bitmap (the planner's choice with the statistics of the moment); either way, not the table.
    expect(text).toMatch(/(Index (Only )?Scan using|Bitmap Index Scan on) notifications_unread_idx/);
    expect(text).not.toMatch(/Seq Scan/);
  });

  it('lists unread notifications from the partial index, and all from the list index', async () => {
    const unread = await plan(
      'SELECT id FROM notifications WHERE account_id = $1 AND read_at IS NULL ORDER BY created_at DESC, id DESC LIMIT 10 OFFSET 0',
      [accountId],
    );
    expect(unread).toMatch(/Index (Only )?Scan using notifications_unread_idx/);
    const all = await plan('SELECT id FROM notifications WHERE account_id = $1 ORDER BY created_at DESC, id DESC LIMIT 10 OFFSET 0', [
      accountId,
    ]);
    expect(all).toMatch(/Index (Only )?Scan using notifications_account_list_idx/);
    expect(all).not.toMatch(/Seq Scan|Sort/);
  });

  it('fetches a burst of announcements (issue 30) from the partial index and the primary key, without scanning the table', async () => {
    const repository = t.app.get(NotificationsRepository);
    const [unread] = (await t.db.query(`SELECT id FROM notifications WHERE account_id = $1 AND read_at IS NULL LIMIT 1`, [accountId])) as {
      id: string;
    }[];
    const other = (await createSettledAccount(t)).id;
    const news = await repository.news([accountId, other], [unread.id]);
    expect(news.get(accountId)).toEqual({
      unread: await repository.unreadCount(accountId),
      notifications: [expect.objectContaining({ id: unread.id, read_at: null })],
    });
    // The other account gets its count, and not the notification announced beside it.
    expect(news.get(other)).toEqual({ unread: await repository.unreadCount(other), notifications: [] });
    const text = await plan(
      `SELECT a.account, u.unread, n.id FROM unnest($1::uuid[]) AS a(account)
        CROSS JOIN LATERAL (SELECT count(*)::int AS unread FROM notifications WHERE account_id = a.account AND read_at IS NULL) u
         LEFT JOIN notifications n ON n.account_id = a.account AND n.id = ANY($2::uuid[])
        ORDER BY a.account, array_position($2::uuid[], n.id)`,
      [[accountId, other], [unread.id]],
    );
    expect(text).toMatch(/Index (Only )?Scan using notifications_unread_idx/);
    expect(text).toMatch(/Index Scan using notifications_pkey/);
    expect(text).not.toMatch(/Seq Scan on notifications/);
  });

  it('marks one read by primary key', async () => {
    const text = await plan('UPDATE notifications SET read_at = COALESCE(read_at, now()) WHERE id = $1 AND account_id = $2', [
      '00000000-0000-4000-8000-000000000000',
      accountId,
    ]);
    expect(text).toMatch(/Index Scan using notifications_pkey/);
  });
});
