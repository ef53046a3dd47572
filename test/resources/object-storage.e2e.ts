import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { ObjectStorageUsersRepository } from '../../libs/object-storage/src/object-storage-users.repository';
import { ServiceStatusService } from '../../libs/services/src/service-status.service';
import { createAccount, TestAccount } from '../factories/accounts';
import { createService } from '../factories/services';
import { waitForOrFail } from '../support/wait-for';
import { startAppWithAccounts, TestAppWithAccounts } from '../support/test-app';

/** Object storage on the simulator (the embedded default); the same routes on a real gateway: test/services/object-storage-rgw.e2e-spec.ts. */
describe('Object storage (simulator)', () => {
  let t: TestAppWithAccounts;
  let owner: TestAccount;
  let stranger: TestAccount;
  beforeAll(async () => {
    ({ owner, stranger } = t = await startAppWithAccounts());
  });
  const post = (path: string, bearer?: string) => {
    const req = request(t.http).post(path);
    return bearer ? req.set('Authorization', bearer) : req;
  };

  it('shows the quota from the product in the service, follows its status, and has none for a VPS', async () => {
    const storage = await createService(t, owner.id, { type: 'object_storage', productSlug: 'storage-1000' });
    expect(storage.objectStorage).toEqual({
      state: 'active',
      usedBytes: null,
      objects: null,
      buckets: null,
      quotaBytes: 1_000_000_000_000,
      quotaObjects: 20_000_000,
      usageUpdatedAt: null,
    });
    expect((await t.get(`/api/services/${storage.id}`, owner.bearer)).body.objectStorage).toEqual(storage.objectStorage);
    const suspended = await t.app.get(ServiceStatusService).setStatus(storage.id, 'suspended', 'unpaid');
    expect(suspended.objectStorage?.state).toBe('suspended');
    const vps = await createService(t, owner.id, { type: 'vps' });
    expect((await t.get(`/api/services/${vps.id}`, owner.bearer)).body.objectStorage).toBeNull();
  });

  it('rotates the key: the response and later reads carry the new one; recorded and notified without the secret', async () => {
    const storage = await createService(t, owner.id, { type: 'object_storage' });
    const first = await t.get(`/api/services/${storage.id}/object-storage/credentials`, owner.bearer);
    expect(first.status).toBe(200);
    const rotated = await post(`/api/services/${storage.id}/object-storage/credentials/rotate`, owner.bearer);
    expect(rotated.status).toBe(200);
    expect(rotated.headers['cache-control']).toBe('no-store');
    expect(rotated.body).toMatchObject({ bucket: first.body.bucket, endpoint: first.body.endpoint, region: first.body.region });
    expect(rotated.body.accessKeyId).not.toBe(first.body.accessKeyId);
    expect(rotated.body.secretAccessKey).toMatch(/^[A-Za-z0-9]{40}$/);
    const again = await t.get(`/api/services/${storage.id}/object-storage/credentials`, owner.bearer);
    expect(again.body).toEqual(rotated.body);

    const events = await t.get(`/api/events?entityId=${storage.id}`, owner.bearer);
    const entries = await t.db.query(`SELECT action, details FROM activity_events WHERE entity_id = $1`, [storage.id]);
    expect(entries).toContainEqual({ action: 'object_storage.credentials_rotate', details: { accessKeyId: rotated.body.accessKeyId } });
    expect(JSON.stringify([entries, events.body])).not.toContain(rotated.body.secretAccessKey);
    const notes = await waitForOrFail(
      async () => (await t.get('/api/notifications', owner.bearer)).body.data as { type: string; entity: { id: string } }[],
      (list) => list.some((n) => n.type === 'object_storage_key_rotated' && n.entity.id === storage.id),
      5000,
      (list) => JSON.stringify(list),
    );
    expect(JSON.stringify(notes)).not.toContain(rotated.body.secretAccessKey);
  });

  it('rotation needs the write scope and an active service', async () => {
    const reader = await createAccount(t, { scopes: ['read'] });
    const mine = await createService(t, reader.id, { type: 'object_storage' });
    const refused = await post(`/api/services/${mine.id}/object-storage/credentials/rotate`, reader.keyBearer);
    expect([refused.status, refused.body.code]).toEqual([403, 'insufficient_scope']);
    const suspended = await createService(t, owner.id, { type: 'object_storage', status: 'suspended' });
    const conflict = await post(`/api/services/${suspended.id}/object-storage/credentials/rotate`, owner.bearer);
    expect([conflict.status, conflict.body.code]).toEqual([409, 'invalid_state']);
  });

  it('reads usage on demand at most once a minute, and lists the buckets (read scope is enough)', async () => {
    const reader = await createAccount(t, { scopes: ['read'] });
    const storage = await createService(t, reader.id, { type: 'object_storage' });
    const refreshed = await post(`/api/services/${storage.id}/object-storage/usage/refresh`, reader.bearer);
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.objectStorage).toMatchObject({ usedBytes: 0, objects: 0, buckets: 1, usageUpdatedAt: expect.any(String) });
    const again = await post(`/api/services/${storage.id}/object-storage/usage/refresh`, reader.bearer);
    expect(again.body.objectStorage.usageUpdatedAt).toBe(refreshed.body.objectStorage.usageUpdatedAt);
    const buckets = await t.get(`/api/services/${storage.id}/object-storage/buckets`, reader.keyBearer);
    expect(buckets.status).toBe(200);
    expect(buckets.body).toEqual({
      data: [{ name: `svc-${storage.id}`, sizeBytes: 0, objects: 0, createdAt: null }],
      page: 1,
      pageSize: 10,
      total: 1,
      totalPages: 1,
    });
  });

  it('notifies no quota level for a reading below 80% (issue 36: every reading said "at 0% of its quota")', async () => {
    const storage = await createService(t, owner.id, { type: 'object_storage' });
    expect((await post(`/api/services/${storage.id}/object-storage/usage/refresh`, owner.bearer)).status).toBe(200);
    // The rotation's notice comes after the reading's would have: once it is listed, nothing else is on its way.
    expect((await post(`/api/services/${storage.id}/object-storage/credentials/rotate`, owner.bearer)).status).toBe(200);
    const notes = await waitForOrFail(
      async () => (await t.get('/api/notifications?pageSize=100', owner.bearer)).body.data as { type: string; entity: { id: string } }[],
      (list) => list.some((n) => n.type === 'object_storage_key_rotated' && n.entity.id === storage.id),
      5000,
      (list) => JSON.stringify(list),
    );
    expect(notes.filter((n) => n.entity.id === storage.id).map((n) => n.type)).toEqual(['object_storage_key_rotated']);
    const [user] = await t.db.query('SELECT quota_notified FROM object_storage_users WHERE service_id = $1', [storage.id]);
    expect(user.quota_notified).toBe(0);
  });

  it('settles a gateway change and says whether a newer one arrived meanwhile (issue 36: it always said none)', async () => {
    const storage = await createService(t, owner.id, { type: 'object_storage' });
    const users = t.app.get(ObjectStorageUsersRepository);
    const [{ v }] = await t.db.query('SELECT desired_version AS v FROM object_storage_users WHERE service_id = $1', [storage.id]);
    await t.db.manager.transaction((m) => users.bump(m, storage.id));
    expect(await users.settle(storage.id, v, 'active')).toBe(true);
    expect(await users.settle(storage.id, v + 1, 'active')).toBe(false);
  });

  it('answers 404 for another account’s service, a VPS or an unknown id, 400 for bad input and 401 without a token', async () => {
    const theirs = await createService(t, stranger.id, { type: 'object_storage' });
    const vps = await createService(t, owner.id, { type: 'vps' });
    const routes = [
      (id: string) => request(t.http).post(`/api/services/${id}/object-storage/credentials/rotate`),
      (id: string) => request(t.http).get(`/api/services/${id}/object-storage/buckets`),
      (id: string) => request(t.http).post(`/api/services/${id}/object-storage/usage/refresh`),
    ];
    for (const route of routes) {
      const answers = [];
      for (const id of [theirs.id, vps.id, randomUUID()]) answers.push((await route(id).set('Authorization', owner.bearer)).body);
      expect(answers.map((a) => a.code)).toEqual(['not_found', 'not_found', 'not_found']);
      expect(answers[0].detail).toBe(answers[2].detail);
      expect((await route('123').set('Authorization', owner.bearer)).status).toBe(400);
      expect((await route(theirs.id)).status).toBe(401);
    }
    for (const query of ['pageSize=0', 'pageSize=101', 'page=abc']) {
      const res = await t.get(`/api/services/${theirs.id}/object-storage/buckets?${query}`, stranger.bearer);
      expect([res.status, res.body.code]).toEqual([400, 'invalid_input']);
    }
    const [row] = await t.db.query('SELECT count(*)::int AS n FROM object_storage_credentials WHERE service_id = $1', [theirs.id]);
    expect(row.n).toBe(0);
  });
});
