import { ServicesRepository } from '../../libs/services/src/services.repository';
import { createAccount } from '../factories/accounts';
import { startTestApp, TestApp } from '../support/test-app';
import { TEST_DATABASE_URL } from '../support/test-env';

const SERVICES = 100_000;

/** The list query of an account with 100,000 services must be served by indexes (PostgreSQL only). */
(TEST_DATABASE_URL ? describe : describe.skip)('Services list query plan', () => {
  let t: TestApp;
  let accountId: string;
  beforeAll(async () => {
    // The bulk insert below outlasts the app's 5 s statement timeout on a busy machine.
    t = await startTestApp({ DB_STATEMENT_TIMEOUT_MS: '120000' });
    accountId = (await createAccount(t)).id;
    const [product] = await t.db.query(`SELECT id FROM products WHERE slug = 'vps-s'`);
    await t.db.query(
      `INSERT INTO services (account_id, product_id, name, type, status, price, currency, billing_cycle, next_due_date, created_at)
       SELECT $1, $2, 'svc-' || g,
              CASE WHEN g % 4 = 0 THEN 'object_storage' ELSE 'vps' END,
              (ARRAY['active', 'active', 'active', 'suspended', 'pending', 'cancelled', 'terminated'])[1 + g % 7],
              5.99, 'EUR', 'monthly', now() + interval '20 days', now() - g * interval '1 second'
         FROM generate_series(1, $3::int) AS g`,
      [accountId, product.id, SERVICES],
    );
    await t.db.query(
      `INSERT INTO vps_instances (service_id, power_state, region, ipv4, ipv6)
       SELECT id, 'running', 'eu-central', '203.0.113.10', '2001:db8::10' FROM services WHERE account_id = $1 AND type = 'vps'`,
      [accountId],
    );
    await t.db.query('ANALYZE services');
    await t.db.query('ANALYZE vps_instances');
    await t.db.query('ANALYZE service_counts');
  }, 120_000);
  afterAll(() => t.close());

  const plan = async (filters: object, page: { page: number; pageSize: number }) => {
    const { text, values } = ServicesRepository.pageStatement(accountId, filters, page);
    const rows: { 'QUERY PLAN': string }[] = await t.db.query(`EXPLAIN ${text}`, values);
    return rows.map((r) => r['QUERY PLAN']).join('\n');
  };

  it('keeps the per-account counters equal to the rows', async () => {
    const [{ total }] = await t.db.query('SELECT sum(n)::int AS total FROM service_counts WHERE account_id = $1', [accountId]);
    expect(total).toBe(SERVICES);
  });

  it.each([
    [{}, 1, 10],
    [{}, 1, 100],
    [{}, 500, 100],
    [{ status: 'active' }, 1, 10],
    [{ type: 'object_storage' }, 3, 50],
    [{ status: 'suspended', type: 'vps' }, 1, 10],
  ])('uses an index and never scans services sequentially for %j page %d size %d', async (filters, page, pageSize) => {
    const text = await plan(filters, { page, pageSize });
    expect(text).toMatch(/Index (Only )?Scan using services_account_\w+_idx on services/);
    expect(text).not.toMatch(/Seq Scan on services/);
    expect(text).not.toMatch(/Seq Scan on vps_instances/);
  });

  // How fast is npm run bench's (list-page-1000); here only that both pages answer, from the counters.
  it('answers the first and a deep page with the right total', async () => {
    const account = { id: accountId };
    for (const page of [1, 9_000]) {
      const { text, values } = ServicesRepository.pageStatement(account.id, {}, { page, pageSize: 10 });
      const rows = await t.db.query(text, values);
      expect(rows).toHaveLength(10);
      expect(rows[0].total).toBe(SERVICES);
    }
  });
});
