import { randomUUID } from 'node:crypto';
import { createAccount, TestAccount } from '../factories/accounts';
import { sharedTestApp, TestApp } from '../support/test-app';

describe('Products', () => {
  let t: TestApp;
  let account: TestAccount;
  beforeAll(async () => {
    t = await sharedTestApp();
    account = await createAccount(t);
  });

  const get = (path: string, bearer?: string) => t.get(path, bearer);

  describe('GET /api/products', () => {
    it('lists the catalogue (present without demo data) with specs and numeric prices per cycle', async () => {
      const res = await get('/api/products?pageSize=100', account.bearer);
      expect(res.status).toBe(200);
      expect(res.body.total).toBeGreaterThanOrEqual(8);
      const bySlug = Object.fromEntries(res.body.data.map((p: { slug: string }) => [p.slug, p]));
      expect(bySlug['vps-m']).toEqual({
        id: expect.any(String),
        slug: 'vps-m',
        name: 'VPS M',
        type: 'vps',
        description: expect.any(String),
        specs: { vcpus: 2, memoryMb: 4096, diskGb: 80, transferTb: 3 },
        prices: [
          { billingCycle: 'hourly', price: 0.0164, currency: 'EUR' },
          { billingCycle: 'monthly', price: 9.99, currency: 'EUR' },
          { billingCycle: 'quarterly', price: 28.79, currency: 'EUR' },
          { billingCycle: 'annually', price: 107.89, currency: 'EUR' },
        ],
        available: true,
      });
      expect(bySlug['storage-1000']).toMatchObject({ type: 'object_storage', specs: { storageGb: 1000, transferTb: 3 } });
      expect(bySlug['vps-xxl-2023'].available).toBe(false);
      expect(res.body.data.filter((p: { type: string }) => p.type === 'vps').length).toBeGreaterThanOrEqual(4);
      expect(res.body.data.filter((p: { type: string }) => p.type === 'object_storage').length).toBeGreaterThanOrEqual(2);
    });

    it('works with an API key', async () => {
      const res = await get('/api/products', account.keyBearer);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ page: 1, pageSize: 10 });
    });

    it('filters by type', async () => {
      for (const type of ['vps', 'object_storage']) {
        const res = await get(`/api/products?type=${type}&pageSize=100`, account.bearer);
        expect(res.status).toBe(200);
        expect(res.body.data.length).toBe(res.body.total);
        expect(res.body.data.every((p: { type: string }) => p.type === type)).toBe(true);
      }
    });

    it('pages through the catalogue in a stable order without duplicates', async () => {
      const all = (await get('/api/products?pageSize=100', account.bearer)).body;
      const seen: string[] = [];
      for (let page = 1; page <= Math.ceil(all.total / 2); page++) {
        const res = await get(`/api/products?page=${page}&pageSize=2`, account.bearer);
        expect(res.body).toMatchObject({ page, pageSize: 2, total: all.total, totalPages: Math.ceil(all.total / 2) });
        seen.push(...res.body.data.map((p: { id: string }) => p.id));
      }
      expect(seen).toEqual(all.data.map((p: { id: string }) => p.id));
      expect((await get('/api/products?page=99', account.bearer)).body.data).toEqual([]);
    });

    it.each([
      'page=0',
      'page=-1',
      'page=10.5',
      'page=1e2',
      'page=abc',
      'page=',
      'pageSize=0',
      'pageSize=101',
      'pageSize=',
      'page=1&page=2',
      'type=dedicated',
      'type=',
      'type=vps&type=vps',
    ])('answers 400 for ?%s', async (query) => {
      const res = await get(`/api/products?${query}`, account.bearer);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('invalid_input');
    });

    // `pageSize=abc` was answered "pageSize must not be greater than 100".
    it.each([
      ['pageSize=abc', 'pageSize must be a whole number from 1 to 100'],
      ['pageSize=-1', 'pageSize must be a whole number from 1 to 100'],
      ['pageSize=2.5', 'pageSize must be a whole number from 1 to 100'],
      ['pageSize=', 'pageSize must be a whole number from 1 to 100'],
      ['pageSize=0', 'pageSize must be a whole number from 1 to 100'],
      ['pageSize=101', 'pageSize must be a whole number from 1 to 100'],
      ['page=abc', 'page must be a whole number from 1 to 9007199254740991'],
      ['page=0', 'page must be a whole number from 1 to 9007199254740991'],
      ['page=99999999999999999', 'page must be a whole number from 1 to 9007199254740991'],
    ])('names the rule ?%s breaks', async (query, message) => {
      const res = await get(`/api/products?${query}`, account.bearer);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ detail: message, errors: [{ field: query.split('=')[0], message }] });
    });

    it('answers 401 without a token', async () => {
      await get('/api/products').expect(401);
    });
  });

  describe('GET /api/products/{id}', () => {
    it('returns one product with an access token and with an API key', async () => {
      const [first] = (await get('/api/products?type=object_storage', account.bearer)).body.data;
      for (const bearer of [account.bearer, account.keyBearer]) {
        const res = await get(`/api/products/${first.id}`, bearer);
        expect(res.status).toBe(200);
        expect(res.body).toEqual(first);
      }
    });

    it('answers 404 for an unknown id, 400 for a malformed one, 401 without a token', async () => {
      const missing = await get(`/api/products/${randomUUID()}`, account.bearer);
      expect(missing.status).toBe(404);
      expect(missing.body.code).toBe('not_found');
      await get('/api/products/vps-m', account.bearer).expect(400);
      await get(`/api/products/${randomUUID()}`).expect(401);
    });
  });
});
