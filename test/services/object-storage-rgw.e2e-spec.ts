import { randomBytes, randomUUID } from 'node:crypto';
import {
  CreateBucketCommand,
  GetObjectCommand,
  ListBucketsCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import request from 'supertest';
import { ObjectStorageProvider } from '../../libs/object-storage/src/object-storage-provider';
import { ServiceProvisioner } from '../../libs/services/src/service-provisioner';
import { ObjectStorageSync } from '../../libs/object-storage/src/object-storage-sync';
import { createAccount, TestAccount } from '../factories/accounts';
import { createService } from '../factories/services';
import { adminGateway, cephTestsEnabled, gatewayLog, rgwEnv, startGateway, stopGateway } from '../support/ceph';
import { runCli } from '../support/run-cli';
import { startTestApp, TestApp } from '../support/test-app';
import { TEST_DATABASE_URL } from '../support/test-env';
import { waitFor, waitForOrFail } from '../support/wait-for';

/**
 * OBJECT_STORAGE_PROVIDER=rgw against the one-node Ceph cluster of scripts/ensure-ceph.sh
 * (radosgw on 127.0.0.1:7480). The operator CLI and the API share the database, so this runs on
 * PostgreSQL only, like the libvirt suite.
 */
const enabled = cephTestsEnabled() && (TEST_DATABASE_URL !== undefined || skipOnPglite());

function skipOnPglite(): false {
  process.stderr.write('Skipping Ceph RGW tests on PGlite: they run in the PostgreSQL pass (TEST_DATABASE_URL).\n');
  return false;
}

const SLOW = 120_000;
/** 0.0001 days: the purge comes about 9 s after termination. */
const PURGE_AFTER_DAYS = '0.0001';

interface Credentials {
  endpoint: string;
  region: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
}

const clients: S3Client[] = [];
const s3 = (c: Credentials) => {
  const client = new S3Client({
    endpoint: c.endpoint,
    region: c.region,
    forcePathStyle: true,
    credentials: { accessKeyId: c.accessKeyId, secretAccessKey: c.secretAccessKey },
    maxAttempts: 1,
  });
  clients.push(client);
  return client;
};

/** The S3 error a call ended with (its code and HTTP status), or 'ok'. */
async function outcome(call: Promise<unknown>): Promise<string> {
  try {
    await call;
    return 'ok';
  } catch (err) {
    const e = err as S3ServiceException;
    return `${e.$metadata?.httpStatusCode} ${e.name}`;
  }
}

(enabled ? describe : describe.skip)('Object storage on Ceph RGW', () => {
  let t: TestApp;
  let owner: TestAccount;
  let stranger: TestAccount;
  let slug: string;
  const gateway = enabled ? adminGateway() : (undefined as never);
  const env = () => ({
    ...rgwEnv(),
    OBJECT_STORAGE_PURGE_AFTER_DAYS: PURGE_AFTER_DAYS,
    OBJECT_STORAGE_RETRY_SECONDS: '1',
    RGW_TIMEOUT_MS: '3000',
  });
  const cliOutput: string[] = [];
  const accounts: string[] = [];
  const cli = async (...args: string[]) => {
    const result = await runCli(args, { ...env(), LOG_LEVEL: 'debug' });
    cliOutput.push(result.stdout, result.stderr);
    if (result.code !== 0) throw new Error(`${args.join(' ')} exited ${result.code}: ${result.stderr}`);
    return result.lines;
  };
  /** Every key the API handed out in this file, for the check of the gateway's log. */
  const handedOut: Credentials[] = [];
  const provision = async () => (await cli('service:provision', '--email', owner.email, '--type', 'object_storage', '--product', slug))[0];
  const credentialsOf = async (id: string, who = owner) => {
    const res = await t.get(`/api/services/${id}/object-storage/credentials`, who.bearer);
    expect(res.status).toBe(200);
    handedOut.push(res.body);
    return res.body as Credentials;
  };
  const rotate = (id: string) =>
    request(t.http)
      .post(`/api/services/${id}/object-storage/credentials/rotate`)
      .set('Authorization', owner.bearer)
      .then((res) => {
        if (res.status === 200) handedOut.push(res.body);
        return res;
      });
  /** What the product and the gateway hold for a service, for a failure's message. */
  const syncState = async (id: string) =>
    JSON.stringify({
      row: await t.db.query(
        `SELECT desired_version, applied_version, gateway_state, lease_until, last_error, last_attempt_at, now() AS now
           FROM object_storage_users WHERE service_id = $1`,
        [id],
      ),
      keys: (await gateway.user(`svc-${id}`))?.keys.map((k) => k.access_key),
    });

  beforeAll(async () => {
    t = await startTestApp(env());
    owner = await createAccount(t);
    stranger = await createAccount(t);
    accounts.push(owner.id, stranger.id);
    // A product small enough to fill: 20 kB and 5 objects, 3 buckets.
    slug = `storage-test-${randomBytes(3).toString('hex')}`;
    const [{ id }] = await t.db.query(
      `INSERT INTO products (slug, name, type, description, specs, available, position) VALUES ($1, 'Test storage', 'object_storage', 'tiny', $2::jsonb, false, 9999) RETURNING id`,
      [slug, JSON.stringify({ storageGb: 0.00002, transferTb: 1, maxObjects: 5, maxBuckets: 3 })],
    );
    await t.db.query(`INSERT INTO product_prices (product_id, billing_cycle, currency, price) VALUES ($1, 'monthly', 'EUR', 1)`, [id]);
  }, SLOW);

  afterAll(async () => {
    for (const client of clients) client.destroy();
    if (!t) return;
    await startGateway();
    // The tiny product breaks the catalogue's schema (storageGb is a whole number): later files of this worker must not see it.
    await t.db.query(`DELETE FROM accounts WHERE id = ANY($1::uuid[])`, [accounts]);
    await t.db.query(`DELETE FROM products WHERE slug = $1`, [slug]);
    await t.close();
  }, SLOW);

  describe('a provisioned service', () => {
    let service: { id: string; objectStorage: { state: string } };
    let creds: Credentials;

    beforeAll(async () => {
      const made = await provision();
      // A gateway slower than RGW_TIMEOUT_MS (the one-node cluster busy with the other suites' disks)
      // leaves the service pending; the sync job, retried every second, makes it active.
      service = await waitForOrFail(
        async () => (await t.get(`/api/services/${made.id}`, owner.bearer)).body,
        (shown) => shown.objectStorage?.state === 'active',
        60_000,
        (shown) => `the service stayed ${shown.objectStorage?.state}`,
      );
    }, SLOW);

    it('is a gateway user with the product’s quota, and credentials that open its bucket with any S3 client', async () => {
      expect(service.objectStorage.state).toBe('active');
      const user = await gateway.user(`svc-${service.id}`);
      expect(user).toMatchObject({ suspended: 0, user_quota: { max_size: 20_000, max_objects: 5 } });
      creds = await credentialsOf(service.id);
      expect(creds).toMatchObject({ endpoint: rgwEnv().OBJECT_STORAGE_ENDPOINT, region: 'default', bucket: `svc-${service.id}` });
      expect(user!.keys.map((k) => k.access_key)).toEqual([creds.accessKeyId]);

      const client = s3(creds);
      expect((await client.send(new ListBucketsCommand({}))).Buckets?.map((b) => b.Name)).toEqual([creds.bucket]);
      await client.send(new CreateBucketCommand({ Bucket: `extra-${service.id.slice(0, 8)}` }));
      await client.send(new PutObjectCommand({ Bucket: creds.bucket, Key: 'hello.txt', Body: 'hello, world' }));
      const listed = await client.send(new ListObjectsV2Command({ Bucket: creds.bucket }));
      expect(listed.Contents?.map((o) => [o.Key, o.Size])).toEqual([['hello.txt', 12]]);
      const got = await client.send(new GetObjectCommand({ Bucket: creds.bucket, Key: 'hello.txt' }));
      expect(await got.Body!.transformToString()).toBe('hello, world');
    });

    let stored = 1;

    it('refuses writes past the quota with QuotaExceeded (bytes, then objects)', async () => {
      const client = s3(creds);
      expect(await outcome(client.send(new PutObjectCommand({ Bucket: creds.bucket, Key: 'big', Body: Buffer.alloc(25_000) })))).toBe(
        '403 QuotaExceeded',
      );
      const outcomes: string[] = [];
      for (const n of [1, 2, 3, 4, 5]) {
        outcomes.push(await outcome(client.send(new PutObjectCommand({ Bucket: creds.bucket, Key: `small-${n}`, Body: 'x'.repeat(100) }))));
      }
      // RGW refuses the write that would reach the limit of 5 objects (or pass it): never a sixth.
      stored += outcomes.filter((o) => o === 'ok').length;
      expect(outcomes.slice(0, 3)).toEqual(['ok', 'ok', 'ok']);
      expect(outcomes.slice(-1)).toEqual(['403 QuotaExceeded']);
      expect(stored).toBeLessThanOrEqual(5);
    });

    it('shows usage after a refresh (at most one reading a minute) and notifies at 80% / 100% of the quota', async () => {
      const refreshed = await request(t.http)
        .post(`/api/services/${service.id}/object-storage/usage/refresh`)
        .set('Authorization', owner.bearer);
      expect(refreshed.status).toBe(200);
      expect(refreshed.body.objectStorage).toMatchObject({
        state: 'active',
        usedBytes: 12 + 100 * (stored - 1),
        objects: stored,
        buckets: 2,
        quotaBytes: 20_000,
        quotaObjects: 5,
        usageUpdatedAt: expect.any(String),
      });
      const again = await request(t.http)
        .post(`/api/services/${service.id}/object-storage/usage/refresh`)
        .set('Authorization', owner.bearer);
      expect(again.body.objectStorage.usageUpdatedAt).toBe(refreshed.body.objectStorage.usageUpdatedAt);
      expect((await t.get(`/api/services/${service.id}`, owner.bearer)).body.objectStorage).toEqual(refreshed.body.objectStorage);
      const notes = await waitForOrFail(
        async () =>
          (await t.get('/api/notifications', owner.bearer)).body.data as { type: string; severity: string; entity: { id: string } }[],
        (list) => list.some((n) => n.type === 'object_storage_quota'),
        10_000,
        (list) => `no quota notification: ${JSON.stringify(list)}`,
      );
      // 4 of 5 objects is 80%, 5 of 5 is 100%.
      expect(notes.find((n) => n.type === 'object_storage_quota')).toMatchObject({
        severity: stored >= 5 ? 'critical' : 'warning',
        entity: { id: service.id },
      });
    });

    it('lists the buckets with their sizes, paginated', async () => {
      const page = await t.get(`/api/services/${service.id}/object-storage/buckets?pageSize=1`, owner.bearer);
      expect(page.status).toBe(200);
      expect(page.body).toMatchObject({
        total: 2,
        totalPages: 2,
        data: [{ name: `extra-${service.id.slice(0, 8)}`, sizeBytes: 0, objects: 0 }],
      });
      const second = await t.get(`/api/services/${service.id}/object-storage/buckets?pageSize=1&page=2`, owner.bearer);
      expect(second.body.data).toEqual([
        { name: creds.bucket, sizeBytes: 12 + 100 * (stored - 1), objects: stored, createdAt: expect.any(String) },
      ]);
    });

    it('follows suspension through the operator CLI (403) and reactivation (works again)', async () => {
      const client = s3(creds);
      const [suspended] = await cli('service:set-status', '--id', service.id, '--status', 'suspended', '--reason', 'unpaid');
      expect(suspended.objectStorage.state).toBe('suspended');
      expect(await outcome(client.send(new GetObjectCommand({ Bucket: creds.bucket, Key: 'hello.txt' })))).toBe('403 UserSuspended');
      const [active] = await cli('service:set-status', '--id', service.id, '--status', 'active');
      expect(active.objectStorage.state).toBe('active');
      expect(await outcome(client.send(new GetObjectCommand({ Bucket: creds.bucket, Key: 'hello.txt' })))).toBe('ok');
    });

    it('rotates the key: the old one is refused, the new one works; recorded and notified without the secret', async () => {
      const res = await rotate(service.id);
      expect(res.status).toBe(200);
      expect(res.headers['cache-control']).toBe('no-store');
      const fresh = res.body as Credentials;
      expect(fresh.accessKeyId).not.toBe(creds.accessKeyId);
      // The gateway has the new key when the rotation answers; the old one may linger in its cache a moment.
      expect(await gateway.user(`svc-${service.id}`)).toMatchObject({ keys: [{ access_key: fresh.accessKeyId }] });
      expect(await outcome(s3(fresh).send(new GetObjectCommand({ Bucket: fresh.bucket, Key: 'hello.txt' })))).toBe('ok');
      const old = await waitFor(
        () => outcome(s3(creds).send(new ListBucketsCommand({}))),
        (result) => result === '403 InvalidAccessKeyId',
        30_000,
      );
      if (old !== '403 InvalidAccessKeyId') throw new Error(`the old key still answers: ${old}; ${await syncState(service.id)}`);
      expect(await credentialsOf(service.id)).toMatchObject({ accessKeyId: fresh.accessKeyId, secretAccessKey: fresh.secretAccessKey });

      const entries = await t.db.query(`SELECT action, details FROM activity_events WHERE entity_id = $1 ORDER BY created_at`, [
        service.id,
      ]);
      expect(entries.map((e: { action: string }) => e.action)).toContain('object_storage.credentials_rotate');
      expect(JSON.stringify(entries)).not.toContain(fresh.secretAccessKey);
      expect(JSON.stringify(entries)).not.toContain(creds.secretAccessKey);
      const notes = (await t.get('/api/notifications', owner.bearer)).body.data as { type: string; body: string }[];
      expect(notes.find((n) => n.type === 'object_storage_key_rotated')?.body).toContain(fresh.accessKeyId);
      creds = fresh;
    });

    it(
      'applies a change made while a process that died holds the lease, once the lease runs out',
      async () => {
        await t.db.query(`UPDATE object_storage_users SET lease_until = now() + interval '20 seconds' WHERE service_id = $1`, [service.id]);
        const res = await rotate(service.id);
        // The gateway makes the new key's secret: none to hand out while the holder's lease lasts.
        expect([res.status, res.body.code]).toEqual([409, 'invalid_state']);
        expect(await outcome(s3(creds).send(new ListBucketsCommand({})))).toBe('ok');
        // The queued job is retried while the lease is held, not completed; the minute scan would take minutes.
        const got = await waitFor(
          () => t.get(`/api/services/${service.id}/object-storage/credentials`, owner.bearer),
          (answer) => answer.status === 200,
          45_000,
        );
        if (got.status !== 200) throw new Error(`no new key: ${got.status} ${got.body.code}; ${await syncState(service.id)}`);
        handedOut.push(got.body);
        const fresh = got.body as Credentials;
        expect(fresh.accessKeyId).not.toBe(creds.accessKeyId);
        const keys = await waitFor(
          async () => (await gateway.user(`svc-${service.id}`))?.keys.map((k) => k.access_key),
          (held) => held?.join() === fresh.accessKeyId,
          45_000,
        );
        if (keys?.join() !== fresh.accessKeyId) throw new Error(`not applied: ${await syncState(service.id)}`);
        expect(await outcome(s3(fresh).send(new GetObjectCommand({ Bucket: fresh.bucket, Key: 'hello.txt' })))).toBe('ok');
        creds = fresh;
      },
      SLOW,
    );

    it(
      'terminated: the key is refused at once, and after the purge delay the user is gone from the gateway',
      async () => {
        const [terminated] = await cli('service:set-status', '--id', service.id, '--status', 'terminated');
        expect(terminated.objectStorage.state).toBe('closed');
        // The gateway drops the key from its cache within moments, not always before the answer.
        await waitForOrFail(
          () => outcome(s3(creds).send(new ListBucketsCommand({}))),
          (result) => result === '403 InvalidAccessKeyId',
          30_000,
          (result) => `the old key still answers: ${result}`,
        );
        expect(await gateway.user(`svc-${service.id}`)).toMatchObject({ keys: [] });
        await waitForOrFail(
          () => gateway.user(`svc-${service.id}`),
          (user) => user === null,
          60_000,
          () => 'the user was not purged',
        );
        await waitForOrFail(
          async () => (await t.get(`/api/services/${service.id}`, owner.bearer)).body.objectStorage.state,
          (state) => state === 'purged',
          10_000,
          (state) => `state ${state}`,
        );
      },
      SLOW,
    );
  });

  it(
    'provisioned while the gateway is down: the command succeeds, the service is pending, the user appears once the gateway is back',
    async () => {
      await stopGateway();
      let service: { id: string; objectStorage: { state: string } };
      try {
        service = await provision();
        expect(service.objectStorage.state).toBe('pending');
        expect((await t.get(`/api/services/${service.id}`, owner.bearer)).body.objectStorage.state).toBe('pending');
        const early = await t.get(`/api/services/${service.id}/object-storage/credentials`, owner.bearer);
        expect([early.status, early.body.code]).toEqual([409, 'invalid_state']);
      } finally {
        await startGateway();
      }
      const state = await waitFor(
        async () => (await t.get(`/api/services/${service.id}`, owner.bearer)).body.objectStorage.state,
        (state) => state === 'active',
        60_000,
      );
      if (state !== 'active') throw new Error(`still ${state}: ${await syncState(service.id)}`);
      const creds = await credentialsOf(service.id);
      expect((await gateway.user(`svc-${service.id}`))!.keys.map((k) => k.access_key)).toEqual([creds.accessKeyId]);
      expect(await outcome(s3(creds).send(new PutObjectCommand({ Bucket: creds.bucket, Key: 'after', Body: 'back' })))).toBe('ok');
    },
    SLOW,
  );

  it(
    'two API processes working on the same service make one user with one key',
    async () => {
      const other = await startTestApp(env());
      try {
        await stopGateway();
        let id: string;
        try {
          [{ id }] = await t.app.get(ServiceProvisioner).provision(owner.id, { type: 'object_storage', productSlug: slug });
        } finally {
          await startGateway();
        }
        await Promise.all([t, other, t, other].map((app) => app.app.get(ObjectStorageSync).run(id)));
        // Even without the lease, the adapter's steps adopt what the other made.
        const spec = {
          uid: `race-${randomUUID()}`,
          region: 'default',
          displayName: 'race',
          quotaBytes: 1000,
          quotaObjects: 10,
          maxBuckets: 1,
          suspended: false,
          keys: [{ accessKeyId: `RACE${randomBytes(8).toString('hex').toUpperCase()}`, secretAccessKey: null }],
          bucket: null,
        };
        const made = await Promise.all([t, other].map((app) => app.app.get(ObjectStorageProvider).apply(spec)));
        expect(made.map((keys) => keys.map((k) => k.accessKeyId))).toEqual([[spec.keys[0].accessKeyId], [spec.keys[0].accessKeyId]]);
        expect((await gateway.user(spec.uid))!.keys.map((k) => k.access_key)).toEqual([spec.keys[0].accessKeyId]);
        await t.app.get(ObjectStorageProvider).purge(spec.uid, 'default');

        const creds = await credentialsOf(id);
        expect((await gateway.user(`svc-${id}`))!.keys.map((k) => k.access_key)).toEqual([creds.accessKeyId]);
      } finally {
        await other.close();
      }
    },
    SLOW,
  );

  it(
    'answers 404 for another account’s service, a VPS or an unknown id on every route, 400 for bad input, 401 without a token',
    async () => {
      const theirs = await createService(t, stranger.id, { type: 'object_storage', productSlug: slug });
      const vps = await createService(t, owner.id, { type: 'vps' });
      const routes = [
        (id: string) => request(t.http).get(`/api/services/${id}/object-storage/credentials`),
        (id: string) => request(t.http).post(`/api/services/${id}/object-storage/credentials/rotate`),
        (id: string) => request(t.http).get(`/api/services/${id}/object-storage/buckets`),
        (id: string) => request(t.http).post(`/api/services/${id}/object-storage/usage/refresh`),
      ];
      for (const route of routes) {
        for (const id of [theirs.id, vps.id, randomUUID()]) {
          const res = await route(id).set('Authorization', owner.bearer);
          expect([res.status, res.body.code]).toEqual([404, 'not_found']);
        }
        const bad = await route('not-a-uuid').set('Authorization', owner.bearer);
        expect([bad.status, bad.body.code]).toEqual([400, 'invalid_input']);
        expect((await route(theirs.id)).status).toBe(401);
      }
      for (const query of ['pageSize=0', 'pageSize=101', 'page=x']) {
        const res = await t.get(`/api/services/${theirs.id}/object-storage/buckets?${query}`, stranger.bearer);
        expect([res.status, res.body.code]).toEqual([400, 'invalid_input']);
      }
      const reader = await createAccount(t, { scopes: ['read'] });
      accounts.push(reader.id);
      const mine = await createService(t, reader.id, { type: 'object_storage', productSlug: slug });
      expect(
        (await request(t.http).post(`/api/services/${mine.id}/object-storage/credentials/rotate`).set('Authorization', reader.keyBearer))
          .status,
      ).toBe(403);
      expect((await t.get(`/api/services/${mine.id}/object-storage/credentials`, reader.keyBearer)).status).toBe(403);
      expect((await t.get(`/api/services/${mine.id}/object-storage/buckets`, reader.keyBearer)).status).toBe(200);
    },
    SLOW,
  );

  it('never sends a customer’s secret to the gateway in a URL, which its access log records (issue 36)', async () => {
    // A request of our own, after all of this file's: once it is in the log, theirs are too.
    const marker = `log-marker-${randomUUID()}`;
    expect(await gateway.user(marker)).toBeNull();
    const log = await waitForOrFail(
      async () => gatewayLog(),
      (text) => text.includes(marker),
      30_000,
      () => 'radosgw logged no request URIs (its access lines are at debug_rgw level 1)',
    );
    expect(new Set(handedOut.map((c) => c.secretAccessKey)).size).toBeGreaterThanOrEqual(4);
    // Ids, not secrets or the log, in a failure's message.
    expect(handedOut.filter((c) => log.includes(c.secretAccessKey)).map((c) => c.accessKeyId)).toEqual([]);
    // The log holds the request that added each key (with its URI), so the check above could fail.
    const added = (id: string) => new RegExp(`"PUT /admin/user\\?key=[^"]*&access-key=${id}&`).test(log);
    expect(handedOut.filter((c) => !added(c.accessKeyId)).map((c) => c.accessKeyId)).toEqual([]);
  });

  it('never writes a secret to the logs', () => {
    const logs = cliOutput.join('\n');
    expect(logs.length).toBeGreaterThan(0);
    expect(logs).not.toContain(gateway.secret);
    expect(logs).not.toMatch(/secret-key=|secretAccessKey":"[A-Za-z0-9]{40}/);
  });
});
