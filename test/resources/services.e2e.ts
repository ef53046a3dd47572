import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { ImagesDemoSeeder } from '../../libs/vps/src/images/images.demo';
import { VpsDemoSeeder } from '../../libs/vps/src/vps.demo';
import { ObjectStorageDemoSeeder } from '../../libs/object-storage/src/object-storage.demo';
import { createAccount, TestAccount } from '../factories/accounts';
import { createService, createServices } from '../factories/services';
import { startAppWithAccounts, TestAppWithAccounts } from '../support/test-app';

const BAD_PAGES: [string, string][] = [
  ['page', '0'],
  ['page', '-1'],
  ['page', '10.5'],
  ['page', '1e2'],
  ['page', 'abc'],
  ['page', ''],
  ['pageSize', '0'],
  ['pageSize', '101'],
  ['pageSize', '-1'],
  ['pageSize', '10.5'],
  ['pageSize', '1e2'],
  ['pageSize', 'abc'],
  ['pageSize', ''],
];

describe('Services', () => {
  let t: TestAppWithAccounts;
  let owner: TestAccount;
  let stranger: TestAccount;
  beforeAll(async () => {
    ({ owner, stranger } = t = await startAppWithAccounts());
  });

  const get = (path: string, bearer?: string) => t.get(path, bearer);

  describe('GET /api/services', () => {
    it('gives the contract fields with a numeric price, plus productId, currency, createdAt and instance', async () => {
      const account = await createAccount(t);
      const vps = await createService(t, account.id, { type: 'vps', productSlug: 'vps-m', name: 'web-01' });
      const bucket = await createService(t, account.id, { type: 'object_storage', productSlug: 'storage-250', billingCycle: 'annually' });
      const cancelled = await createService(t, account.id, { type: 'vps', status: 'cancelled' });
      const res = await get('/api/services', account.bearer);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ page: 1, pageSize: 10, total: 3, totalPages: 1 });
      expect(res.body.data.map((s: { id: string }) => s.id)).toEqual([cancelled.id, bucket.id, vps.id]);
      const [product] = await t.db.query(`SELECT id FROM products WHERE slug = 'vps-m'`);
      expect(res.body.data[2]).toEqual({
        id: vps.id,
        name: 'web-01',
        type: 'vps',
        status: 'active',
        price: 9.99,
        billingCycle: 'monthly',
        nextDueDate: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        productId: product.id,
        currency: 'EUR',
        createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        instance: {
          powerState: 'running',
          ipv4: expect.any(String),
          ipv6: expect.any(String),
          region: 'eu-central',
          ssh: { host: res.body.data[2].instance.ipv4, port: 22, hostKeys: [] },
          rescue: false,
          firewalls: [],
          volumes: [],
          addresses: [
            { ip: res.body.data[2].instance.ipv4, ptr: null },
            { ip: res.body.data[2].instance.ipv6, ptr: null },
          ],
        },
        objectStorage: null,
        volume: null,
      });
      expect(typeof res.body.data[1].price).toBe('number');
      expect(res.body.data[1]).toMatchObject({
        type: 'object_storage',
        price: 53.89,
        billingCycle: 'annually',
        instance: null,
        objectStorage: { state: 'active', quotaBytes: 250_000_000_000, quotaObjects: 5_000_000 },
      });
      expect(res.body.data[0]).toMatchObject({ status: 'cancelled', nextDueDate: null, instance: { powerState: 'stopped' } });
      expect(new Date(res.body.data[2].nextDueDate).getTime()).toBeGreaterThan(Date.now());
    });

    it('works with an access token and with an API key, and only shows the caller’s services', async () => {
      const account = await createAccount(t);
      const mine = await createService(t, account.id);
      await createService(t, stranger.id);
      for (const bearer of [account.bearer, account.keyBearer]) {
        const res = await get('/api/services', bearer);
        expect(res.status).toBe(200);
        expect(res.body.data.map((s: { id: string }) => s.id)).toEqual([mine.id]);
      }
    });

    it('gives an empty page (200) for an account without services and for a page past the end', async () => {
      const account = await createAccount(t);
      expect((await get('/api/services', account.bearer)).body).toEqual({ data: [], page: 1, pageSize: 10, total: 0, totalPages: 0 });
      await createService(t, account.id);
      expect((await get('/api/services?page=5', account.bearer)).body).toEqual({
        data: [],
        page: 5,
        pageSize: 10,
        total: 1,
        totalPages: 1,
      });
    });

    it('walks 25 services in pages of 10 and of 7 with no duplicates or gaps, newest first', async () => {
      const account = await createAccount(t);
      const created = [
        ...(await createServices(t, account.id, 15, { type: 'vps' })),
        ...(await createServices(t, account.id, 10, { type: 'object_storage' })),
      ];
      for (const pageSize of [10, 7, 100, 1]) {
        const seen: string[] = [];
        let totalPages = 1;
        for (let page = 1; page <= totalPages; page++) {
          const res = await get(`/api/services?page=${page}&pageSize=${pageSize}`, account.bearer);
          expect(res.status).toBe(200);
          expect(res.body).toMatchObject({ page, pageSize, total: 25, totalPages: Math.ceil(25 / pageSize) });
          expect(res.body.data.length).toBe(page < res.body.totalPages ? pageSize : 25 - pageSize * (res.body.totalPages - 1));
          totalPages = res.body.totalPages;
          seen.push(...res.body.data.map((s: { id: string }) => s.id));
        }
        expect(seen).toHaveLength(25);
        expect(new Set(seen).size).toBe(25);
        expect([...seen].sort()).toEqual(created.map((s) => s.id).sort());
        // Newest first (the database orders by microseconds, then id; responses show milliseconds).
        const all = (await get('/api/services?pageSize=100', account.bearer)).body.data as { id: string; createdAt: string }[];
        expect(seen).toEqual(all.map((s) => s.id));
        for (let i = 1; i < all.length; i++) expect(all[i - 1].createdAt >= all[i].createdAt).toBe(true);
      }
    });

    it('uses the default page size of 10 and accepts the limits 1 and 100', async () => {
      const account = await createAccount(t);
      await createServices(t, account.id, 12);
      expect((await get('/api/services', account.bearer)).body.data).toHaveLength(10);
      expect((await get('/api/services?pageSize=1', account.bearer)).body).toMatchObject({ pageSize: 1, totalPages: 12 });
      expect((await get('/api/services?pageSize=100&page=1', account.bearer)).body.data).toHaveLength(12);
    });

    it('filters by status and type, with matching totals', async () => {
      const account = await createAccount(t);
      await createServices(t, account.id, 3, { type: 'vps', status: 'active' });
      await createServices(t, account.id, 2, { type: 'vps', status: 'suspended' });
      await createServices(t, account.id, 4, { type: 'object_storage', status: 'active' });
      await createServices(t, account.id, 1, { type: 'object_storage', status: 'terminated' });
      const cases: [string, number, (s: { type: string; status: string }) => boolean][] = [
        ['type=vps', 5, (s) => s.type === 'vps'],
        ['type=object_storage', 5, (s) => s.type === 'object_storage'],
        ['status=active', 7, (s) => s.status === 'active'],
        ['status=suspended', 2, (s) => s.status === 'suspended'],
        ['status=active&type=object_storage', 4, (s) => s.status === 'active' && s.type === 'object_storage'],
        ['status=terminated&type=vps', 0, () => false],
        ['status=pending', 0, () => false],
      ];
      for (const [filter, total, match] of cases) {
        const res = await get(`/api/services?${filter}&pageSize=3`, account.bearer);
        expect({ filter, status: res.status, total: res.body.total }).toEqual({ filter, status: 200, total });
        expect(res.body.data.every(match)).toBe(true);
        expect(res.body.data).toHaveLength(Math.min(3, total));
      }
    });

    it('keeps totals right through status changes', async () => {
      const account = await createAccount(t);
      const [a] = await createServices(t, account.id, 3);
      await t.db.query(`UPDATE services SET status = 'suspended' WHERE id = $1`, [a.id]);
      expect((await get('/api/services?status=active', account.bearer)).body.total).toBe(2);
      expect((await get('/api/services?status=suspended', account.bearer)).body.total).toBe(1);
      expect((await get('/api/services', account.bearer)).body.total).toBe(3);
      const [{ count }] = await t.db.query(`SELECT count(*)::int AS count FROM services WHERE account_id = $1`, [account.id]);
      const [{ sum }] = await t.db.query(`SELECT sum(n)::int AS sum FROM service_counts WHERE account_id = $1`, [account.id]);
      expect(sum).toBe(count);
    });

    it.each(BAD_PAGES)('answers 400 for %s=%j', async (name, value) => {
      const res = await get(`/api/services?${name}=${encodeURIComponent(value)}`, owner.bearer);
      expect(res.status).toBe(400);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.body).toMatchObject({ status: 400, code: 'invalid_input' });
      expect(JSON.stringify(res.body.errors)).toContain(name);
    });

    it.each([
      'page=1&page=2',
      'pageSize=10&pageSize=20',
      'status=active&status=pending',
      'status=running',
      'status=',
      'type=dedicated',
      'type=',
      'type=vps&type=vps',
      'sort=name',
    ])('answers 400 for ?%s', async (query) => {
      const res = await get(`/api/services?${query}`, owner.bearer);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('invalid_input');
    });

    it('answers 401 without a token or with a bad one', async () => {
      const res = await get('/api/services');
      expect(res.status).toBe(401);
      expect(res.headers['www-authenticate']).toContain('Bearer');
      await get('/api/services', 'Bearer nope').expect(401);
    });
  });

  describe('GET /api/services/{id}', () => {
    it('returns one service with an access token and with an API key', async () => {
      const service = await createService(t, owner.id, { type: 'object_storage' });
      for (const bearer of [owner.bearer, owner.keyBearer]) {
        const res = await get(`/api/services/${service.id}`, bearer);
        expect(res.status).toBe(200);
        expect(res.body).toEqual(service);
      }
    });

    it('answers the same 404 for another account’s service as for an unknown id', async () => {
      const theirs = await createService(t, stranger.id);
      const other = await get(`/api/services/${theirs.id}`, owner.bearer);
      const unknown = await get(`/api/services/${randomUUID()}`, owner.bearer);
      expect(other.status).toBe(404);
      expect(unknown.status).toBe(404);
      const strip = (b: Record<string, unknown>) => ({ ...b, requestId: undefined });
      expect(strip(other.body)).toEqual(strip(unknown.body));
      expect(other.body.code).toBe('not_found');
    });

    it('answers 400 for a malformed id and 401 without a token', async () => {
      const res = await get('/api/services/not-a-uuid', owner.bearer);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('invalid_input');
      await get(`/api/services/${randomUUID()}`).expect(401);
    });
  });

  describe('GET /api/services/{id}/object-storage/credentials', () => {
    const path = (id: string) => `/api/services/${id}/object-storage/credentials`;

    it('issues S3 credentials once, keeps the secret sealed, and answers with no-store', async () => {
      const bucket = await createService(t, owner.id, { type: 'object_storage' });
      const first = await get(path(bucket.id), owner.bearer);
      expect(first.status).toBe(200);
      expect(first.headers['cache-control']).toBe('no-store');
      expect(first.body).toEqual({
        endpoint: expect.stringMatching(/^https:\/\//),
        region: expect.any(String),
        bucket: expect.any(String),
        accessKeyId: expect.stringMatching(/^[A-Z0-9]{20}$/),
        secretAccessKey: expect.stringMatching(/^[A-Za-z0-9]{40}$/),
        createdAt: expect.any(String),
      });
      const again = await get(path(bucket.id), owner.keyBearer);
      expect(again.status).toBe(200);
      expect(again.body).toEqual(first.body);
      const [row] = await t.db.query('SELECT * FROM object_storage_credentials WHERE service_id = $1', [bucket.id]);
      expect(JSON.stringify(row)).not.toContain(first.body.secretAccessKey);
      expect(row.secret_sealed).toMatch(/^v1\./);
    });

    it('gives concurrent first requests the same key', async () => {
      const bucket = await createService(t, owner.id, { type: 'object_storage' });
      const results = await Promise.all([1, 2, 3].map(() => get(path(bucket.id), owner.bearer)));
      expect(results.map((r) => r.status)).toEqual([200, 200, 200]);
      expect(new Set(results.map((r) => r.body.accessKeyId)).size).toBe(1);
    });

    it('needs the write scope (403 for a read-only key)', async () => {
      const reader = await createAccount(t, { scopes: ['read'] });
      const bucket = await createService(t, reader.id, { type: 'object_storage' });
      const res = await get(path(bucket.id), reader.keyBearer);
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('insufficient_scope');
      await get(`/api/services/${bucket.id}`, reader.keyBearer).expect(200);
    });

    it('is 404 for a VPS, 409 invalid_state unless active', async () => {
      const vps = await createService(t, owner.id, { type: 'vps' });
      const res = await get(path(vps.id), owner.bearer);
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('not_found');
      for (const status of ['pending', 'suspended', 'cancelled', 'terminated'] as const) {
        const bucket = await createService(t, owner.id, { type: 'object_storage', status });
        const conflict = await get(path(bucket.id), owner.bearer);
        expect({ status, code: conflict.status, problem: conflict.body.code }).toEqual({ status, code: 409, problem: 'invalid_state' });
      }
    });

    it('is the same 404 for another account’s bucket as for an unknown id, and issues nothing', async () => {
      const theirs = await createService(t, stranger.id, { type: 'object_storage' });
      const other = await get(path(theirs.id), owner.bearer);
      const unknown = await get(path(randomUUID()), owner.bearer);
      expect([other.status, unknown.status]).toEqual([404, 404]);
      expect(other.body.detail).toBe(unknown.body.detail);
      expect(await t.db.query('SELECT 1 FROM object_storage_credentials WHERE service_id = $1', [theirs.id])).toHaveLength(0);
    });

    it('answers 400 for a malformed id and 401 without a token', async () => {
      await get(path('123'), owner.bearer).expect(400);
      await get(path(randomUUID())).expect(401);
    });
  });

  describe('demo data', () => {
    it('gives an account services of every type and several statuses, priced from the catalogue', async () => {
      const account = await createAccount(t);
      await t.app.get(DataSource).transaction(async (manager) => {
        for (const seeder of [t.app.get(ImagesDemoSeeder), t.app.get(VpsDemoSeeder), t.app.get(ObjectStorageDemoSeeder)])
          await seeder.seed({ accountId: account.id, manager });
      });
      const res = await request(t.http).get('/api/services?pageSize=100').set('Authorization', account.bearer);
      expect(res.status).toBe(200);
      const services = res.body.data as {
        type: string;
        status: string;
        price: number;
        nextDueDate: string | null;
        productId: string;
        billingCycle: string;
        name: string;
      }[];
      expect(new Set(services.map((s) => s.type))).toEqual(new Set(['vps', 'object_storage', 'volume']));
      expect(new Set(services.map((s) => s.status)).size).toBeGreaterThanOrEqual(4);
      const active = services.filter((s) => s.status === 'active');
      expect(active.every((s) => s.nextDueDate && new Date(s.nextDueDate).getTime() > Date.now())).toBe(true);
      const prices = await t.db.query(`SELECT product_id, billing_cycle, price::float8 AS price FROM product_prices`);
      // A volume's product prices one GiB: the demo's 100 GiB volume costs 100 times it.
      const quantity = (s: (typeof services)[number]) => (s.type === 'volume' ? 100 : 1);
      for (const service of services) {
        const unit = Number((service.price / quantity(service)).toFixed(4));
        expect(prices).toContainEqual({ product_id: service.productId, billing_cycle: service.billingCycle, price: unit });
      }
      const web = services.find((s) => s.name === 'web-01') as unknown as { id: string };
      const actions = await request(t.http).get(`/api/services/${web.id}/instance/actions`).set('Authorization', account.bearer);
      expect(actions.body.total).toBe(4);
      expect(actions.body.data.map((a: { status: string }) => a.status).sort()).toEqual(['failed', 'succeeded', 'succeeded', 'succeeded']);
      expect(actions.body.data.find((a: { status: string }) => a.status === 'failed').error).toEqual({
        code: 'hypervisor_unavailable',
        message: 'The hypervisor could not be reached.',
      });
    });
  });
});
