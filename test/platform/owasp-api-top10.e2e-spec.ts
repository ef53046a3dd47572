import request from 'supertest';
import { sign } from 'jsonwebtoken';
import { createAccount, TestAccount } from '../factories/accounts';
import { confirmEmailInDatabase } from '../support/confirm-email';
import { ServerProcess, startServerProcess } from '../support/server-process';
import { startTestApp, TestApp } from '../support/test-app';
import { waitFor, waitForOrFail } from '../support/wait-for';
import { TEST_DATABASE_URL } from '../support/test-env';

/**
 * OWASP API Security Top 10 (2023), as it applies here. Resource-level authorization (API1) is
 * also covered per area in each area's tests ("404 for another account's id").
 */
describe('OWASP API Security Top 10', () => {
  let t: TestApp;
  let owner: TestAccount;
  let doc: any;
  beforeAll(async () => {
    t = await startTestApp({ CORS_ORIGINS: 'https://dashboard.hosting.example', DOCS_ENABLED: 'true' });
    owner = await createAccount(t);
    doc = (await request(t.http).get('/openapi.json')).body;
  });
  afterAll(() => t.close());

  const operations = () =>
    Object.entries<Record<string, any>>(doc.paths).flatMap(([path, item]) => Object.keys(item).map((method) => ({ path, method })));
  const PUBLIC = new Set([
    'post /api/auth/register',
    'post /api/auth/login',
    'post /api/auth/refresh',
    'post /api/auth/login/2fa',
    'post /api/auth/password/forgot',
    'post /api/auth/password/reset',
    'post /api/auth/email/verify',
  ]);
  const concrete = (path: string) => path.replace(/\{\w+\}/g, '6b0c8c3e-0000-4000-8000-000000000000');

  describe('API2: broken authentication', () => {
    it('refuses every protected operation without a token, with 401 and WWW-Authenticate', async () => {
      for (const { path, method } of operations()) {
        if (PUBLIC.has(`${method} ${path}`)) continue;
        const res = await (request(t.http) as any)[method](concrete(path));
        expect({ op: `${method} ${path}`, status: res.status }).toEqual({ op: `${method} ${path}`, status: 401 });
        expect(res.headers['www-authenticate']).toBe('Bearer');
      }
    });

    it.each([
      [
        'alg none',
        () =>
          `${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${Buffer.from(JSON.stringify({ sub: 'x', sid: 'y', typ: 'access' })).toString('base64url')}.`,
      ],
      [
        'a wrong secret',
        () => sign({ sid: 'y', typ: 'access' }, 'wrong-secret-wrong-secret-wrong-secret', { subject: 'x', issuer: 'hosting-account-api' }),
      ],
      [
        'HS512',
        (secret: string) => sign({ sid: 'y', typ: 'access' }, secret, { subject: 'x', issuer: 'hosting-account-api', algorithm: 'HS512' }),
      ],
      ['another issuer', (secret: string) => sign({ sid: 'y', typ: 'access' }, secret, { subject: 'x', issuer: 'evil' })],
    ])('refuses a JWT with %s', async (_name, make) => {
      const res = await request(t.http)
        .get('/api/auth/me')
        .set('Authorization', `Bearer ${make(t.config.jwtSecret)}`);
      expect(res.status).toBe(401);
    });

    it('refuses a correctly signed access token of a live session that has no exp (issue 17, finding 11)', async () => {
      const claims = JSON.parse(Buffer.from(owner.accessToken.split('.')[1], 'base64url').toString()) as { sub: string; sid: string };
      const forever = sign({ sid: claims.sid, typ: 'access' }, t.config.jwtSecret, { subject: claims.sub, issuer: 'hosting-account-api' });
      expect((await request(t.http).get('/api/auth/me').set('Authorization', `Bearer ${forever}`)).status).toBe(401);
      expect((await request(t.http).get('/api/auth/me').set('Authorization', owner.bearer)).status).toBe(200);
    });
  });

  describe('API1: broken object level authorization (the activity log)', () => {
    it("answers 404 for another account's activity entry, and lists only the caller's own", async () => {
      const stranger = await createAccount(t);
      const own = await request(t.http).get('/api/events').set('Authorization', owner.bearer).expect(200);
      const entry = own.body.data[0];
      expect(entry).toBeDefined();
      await request(t.http).get(`/api/events/${entry.id}`).set('Authorization', owner.bearer).expect(200);
      const stolen = await request(t.http).get(`/api/events/${entry.id}`).set('Authorization', stranger.keyBearer);
      expect(stolen.status).toBe(404);
      const theirs = await request(t.http)
        .get(`/api/events?entityId=${entry.entity?.id ?? entry.id}`)
        .set('Authorization', stranger.bearer);
      expect(theirs.body.data).toEqual([]);
    });
  });

  describe('API3: broken object property level authorization', () => {
    it('refuses fields a client may not set (mass assignment)', async () => {
      for (const extra of [{ accountId: owner.id }, { revokedAt: null }, { keyHash: 'x' }, { lastUsedAt: '2020-01-01T00:00:00Z' }]) {
        const res = await request(t.http)
          .post('/api/auth/api-keys')
          .set('Authorization', owner.bearer)
          .send({ name: 'k', ...extra });
        expect(res.status).toBe(400);
      }
    });

    it('never returns stored secrets', async () => {
      const list = await request(t.http).get('/api/auth/api-keys').set('Authorization', owner.bearer);
      const me = await request(t.http).get('/api/auth/me').set('Authorization', owner.bearer);
      for (const body of [list.text, me.text]) expect(body).not.toMatch(/hash|password|"key"/i);
    });
  });

  describe('API4: unrestricted resource consumption', () => {
    it('bounds page sizes, body sizes and nesting', async () => {
      await request(t.http).get('/api/auth/api-keys?pageSize=101').set('Authorization', owner.bearer).expect(400);
      const big = await request(t.http)
        .post('/api/auth/api-keys')
        .set('Authorization', owner.bearer)
        .set('Content-Type', 'application/json')
        .send(`{"name":"${'x'.repeat(2 * 1024 * 1024)}"}`);
      expect(big.status).toBe(413);
      const nested = await request(t.http)
        .post('/api/auth/api-keys')
        .set('Authorization', owner.bearer)
        .set('Content-Type', 'application/json')
        .send('['.repeat(10_000) + ']'.repeat(10_000));
      expect(nested.status).toBe(400);
    });

    it('refuses wide JSON before validation, with a short answer (issue 17, finding 1)', async () => {
      const wide = JSON.stringify(Object.fromEntries(Array.from({ length: 80_000 }, (_, i) => [`k${i}`, 1])));
      const long = JSON.stringify({ email: Array.from({ length: 100_000 }, () => 1), password: 'x' });
      const many = JSON.stringify({ email: 'a@example.test', password: 'p', list: Array.from({ length: 40 }, () => Array(60).fill(0)) });
      for (const body of [wide, long, many]) {
        const res = await request(t.http).post('/api/auth/login').set('Content-Type', 'application/json').send(body);
        expect(res.status).toBe(400);
        expect(res.body.code).toBe('invalid_input');
        expect(res.text.length).toBeLessThan(2048);
      }
    });

    it('lists only the first field errors of a body with many (issue 17, finding 1)', async () => {
      const extra = Object.fromEntries(Array.from({ length: 90 }, (_, i) => [`extra${i}`, 1]));
      const res = await request(t.http)
        .post('/api/auth/login')
        .send({ email: owner.email, password: 'x', ...extra });
      expect(res.status).toBe(400);
      expect(res.body.errors).toHaveLength(10);
      expect(res.body.detail).toMatch(/and \d+ more errors$/);
      expect(res.text.length).toBeLessThan(4096);
    });

    it('rate limits per credential (see test/platform/rate-limit.e2e-spec.ts) and reports it on every response', async () => {
      const res = await request(t.http).get('/api/auth/me').set('Authorization', owner.keyBearer);
      expect(res.headers['ratelimit-limit']).toBeDefined();
      expect(res.headers['ratelimit-remaining']).toBeDefined();
      expect(res.headers['ratelimit-reset']).toBeDefined();
    });
  });

  describe('API5: broken function level authorization', () => {
    it('refuses every mutating operation to a read-only API key with 403 insufficient_scope', async () => {
      const reader = await createAccount(t, { scopes: ['read'] });
      let checked = 0;
      for (const { path, method } of operations()) {
        const id = `${method} ${path}`;
        const handsOutAccess = /\/instance\/console|\/object-storage\/credentials|\/api\/auth\/api-keys/.test(path);
        if (PUBLIC.has(id) || (method === 'get' && !handsOutAccess)) continue;
        const res = await (request(t.http) as any)[method](concrete(path)).set('Authorization', reader.keyBearer).send({});
        expect({ id, status: res.status, code: res.body.code }).toEqual({ id, status: 403, code: 'insufficient_scope' });
        checked++;
      }
      expect(checked).toBeGreaterThan(3);
    });
  });

  describe('API7: server side request forgery', () => {
    it('refuses webhook URLs to internal addresses and plain http, and never shows a secret again', async () => {
      for (const url of [
        'https://169.254.169.254/latest/meta-data/',
        'https://[::ffff:127.0.0.1]/',
        'https://10.0.0.5/',
        'http://hooks.example.com/',
      ]) {
        const res = await request(t.http)
          .post('/api/webhooks')
          .set('Authorization', owner.bearer)
          .send({ url, events: ['*'] });
        expect([url, res.status]).toEqual([url, 400]);
      }
      const created = await request(t.http)
        .post('/api/webhooks')
        .set('Authorization', owner.bearer)
        .send({ url: 'https://receiver.invalid/hooks', events: ['ssh_key.create'] })
        .expect(201);
      const list = await request(t.http).get('/api/webhooks').set('Authorization', owner.bearer).expect(200);
      expect(list.text).not.toContain(created.body.secret);
      expect(list.text).not.toMatch(/secret"|sealed/i);
    });
  });

  describe('API8: security misconfiguration', () => {
    it('sends protective headers and no framework banner', async () => {
      const res = await request(t.http).get('/api/auth/me').set('Authorization', owner.bearer);
      expect(res.headers['x-powered-by']).toBeUndefined();
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['x-frame-options']).toBe('DENY');
      expect(res.headers['referrer-policy']).toBe('no-referrer');
    });

    it('allows CORS only for configured origins, never with a wildcard', async () => {
      const allowed = await request(t.http)
        .options('/api/auth/me')
        .set('Origin', 'https://dashboard.hosting.example')
        .set('Access-Control-Request-Method', 'GET');
      expect(allowed.headers['access-control-allow-origin']).toBe('https://dashboard.hosting.example');
      const other = await request(t.http).get('/api/auth/me').set('Origin', 'https://evil.example').set('Authorization', owner.bearer);
      expect(other.headers['access-control-allow-origin']).toBeUndefined();
      expect(allowed.headers['access-control-allow-credentials']).toBeUndefined();
    });

    it('marks responses that carry secrets as not cacheable', async () => {
      const key = await request(t.http).post('/api/auth/api-keys').set('Authorization', owner.bearer).send({ name: 'secret' });
      expect(key.headers['cache-control']).toBe('no-store');
      const login = await request(t.http).post('/api/auth/login').send({ email: owner.email, password: owner.password });
      expect(login.headers['cache-control']).toBe('no-store');
    });
  });

  describe('Bodies of the wrong shape (issue 36, finding 6)', () => {
    type Schema = Record<string, any>;
    const resolve = (schema: Schema | undefined): Schema | undefined =>
      schema?.$ref ? doc.components.schemas[schema.$ref.split('/').pop()] : schema?.allOf?.length === 1 ? resolve(schema.allOf[0]) : schema;
    const isObject = (schema: Schema | undefined) => resolve(schema)?.type === 'object' || resolve(schema)?.properties !== undefined;
    const sampleOf = (schema: Schema) =>
      Object.fromEntries(Object.entries<Schema>(resolve(schema)!.properties ?? {}).map(([name, p]) => [name, p.example ?? p.enum?.[0]]));
    type NestedProperty = { op: string; path: string; method: string; name: string; hostile: unknown[] };
    /** Each request body property that holds an object or a list of objects, with values that are not that. */
    const nestedProperties = () =>
      operations().flatMap(({ path, method }) => {
        const body = resolve(doc.paths[path][method].requestBody?.content?.['application/json']?.schema);
        return Object.entries<Schema>(body?.properties ?? {}).flatMap(([name, property]): NestedProperty[] => {
          const op = `${method} ${path}`;
          if (isObject(property)) {
            const sample = sampleOf(property);
            return [{ op, path, method, name, hostile: [[], [[]], [sample], 1, 'x', true] }];
          }
          if (property.type !== 'array' || !isObject(property.items)) return [];
          const sample = sampleOf(property.items);
          return [{ op, path, method, name, hostile: [[[]], [[[]]], [[sample]], [null], [1], ['x'], [true], {}, { 0: sample }, 'x', 1] }];
        });
      });
    const storedFor = async (accountId: string) => {
      const tables = await t.db.query(
        `SELECT table_name AS name FROM information_schema.columns WHERE column_name = 'account_id' AND table_schema = current_schema()`,
      );
      const counts = await Promise.all(
        tables.map(async ({ name }: { name: string }) => [
          name,
          (await t.db.query(`SELECT count(*)::int AS n FROM "${name}" WHERE account_id = $1`, [accountId]))[0].n,
        ]),
      );
      return Object.fromEntries(counts) as Record<string, number>;
    };
    /** A new account once the notification of its API key is in (written after the key, by an event). */
    const settledAccount = async () => {
      const account = await createAccount(t);
      await waitForOrFail(
        () => storedFor(account.id),
        (stored) => stored.notifications === 1 && stored.notification_counts === 1,
        8000,
        (stored) => `the API key's notification did not arrive: ${JSON.stringify(stored)}`,
      );
      return account;
    };

    it('answers 400 invalid_input naming the property, and stores nothing, for an array, a scalar or null where an object belongs', async () => {
      const account = await settledAccount();
      const properties = nestedProperties();
      expect(properties.map((p) => `${p.op} ${p.name}`)).toContain('post /api/support/tickets/attachments/presign files');
      const before = await storedFor(account.id);
      const answers = [];
      for (const { op, path, method, name, hostile } of properties) {
        for (const value of hostile) {
          const res = await (request(t.http) as any)
            [method](concrete(path))
            .set('Authorization', account.bearer)
            .send({ [name]: value });
          const named = (res.body.errors ?? []).some((e: { field: string }) => e.field === name || e.field.startsWith(`${name}.`));
          answers.push({
            op,
            body: JSON.stringify({ [name]: value }),
            answer: `${res.status} ${res.body.code}${named ? '' : ', not naming it'}`,
          });
        }
      }
      expect(answers.filter((a) => a.answer !== '400 invalid_input')).toEqual([]);
      expect(await storedFor(account.id)).toEqual(before);
    });

    it('answers 400 invalid_input, and stores nothing, for a JSON array where a body object belongs', async () => {
      const account = await settledAccount();
      // JSON bodies: a zone file's import takes text/plain, and answers JSON with 415 (test/dns/dns-zones.e2e-spec.ts).
      const withBody = operations().filter(({ path, method }) => doc.paths[path][method].requestBody?.content?.['application/json']);
      expect(withBody.length).toBeGreaterThan(10);
      const before = await storedFor(account.id);
      const answers = [];
      for (const { path, method } of withBody) {
        const sample = sampleOf(doc.paths[path][method].requestBody.content['application/json'].schema);
        for (const body of [[], [[]], [sample], [sample, sample]]) {
          const res = await (request(t.http) as any)[method](concrete(path)).set('Authorization', account.bearer).send(body);
          answers.push({ op: `${method} ${path}`, body: JSON.stringify(body), answer: `${res.status} ${res.body.code}` });
        }
      }
      expect(answers.filter((a) => a.answer !== '400 invalid_input')).toEqual([]);
      expect(await storedFor(account.id)).toEqual(before);
    });
  });
});

(TEST_DATABASE_URL ? describe : describe.skip)('Logs never contain secrets', () => {
  let server: ServerProcess;
  beforeAll(async () => {
    server = await startServerProcess({ DATABASE_URL: TEST_DATABASE_URL, LOG_LEVEL: 'trace' });
  });
  afterAll(() => server.stop());

  it('keeps passwords, tokens and API keys out of the log of a whole session', async () => {
    const email = `logs-${Date.now()}@example.test`;
    const password = 'a very secret passphrase 123';
    const reg = await request(server.url).post('/api/auth/register').send({ email, password, name: 'Logs' }).expect(201);
    await confirmEmailInDatabase(TEST_DATABASE_URL!, email);
    const refreshed = await request(server.url).post('/api/auth/refresh').send({ refreshToken: reg.body.refreshToken }).expect(200);
    const key = await request(server.url)
      .post('/api/auth/api-keys')
      .set('Authorization', `Bearer ${refreshed.body.accessToken}`)
      .send({ name: 'k' })
      .expect(201);
    await request(server.url).get('/api/auth/me').set('Authorization', `Bearer ${key.body.key}`).expect(200);
    await request(server.url).get(`/api/auth/me?access_token=${key.body.key}`).expect(401);
    await request(server.url).post('/api/auth/login').send({ email, password: 'wrong but secret-ish 9' }).expect(401);
    await request(server.url)
      .post('/api/auth/password')
      .set('Authorization', `Bearer ${refreshed.body.accessToken}`)
      .send({ currentPassword: password, newPassword: 'another secret passphrase 456' })
      .expect(204);
    // The last request's line is written once its response has finished.
    const log = await waitFor(
      async () => server.output(),
      (out) => out.includes('/api/auth/password'),
    );
    expect(log).toContain('/api/auth/me');
    for (const secret of [
      password,
      'wrong but secret-ish 9',
      'another secret passphrase 456',
      reg.body.accessToken,
      reg.body.refreshToken,
      refreshed.body.refreshToken,
      refreshed.body.accessToken,
      key.body.key,
    ]) {
      expect(log).not.toContain(secret);
    }
  });
});
