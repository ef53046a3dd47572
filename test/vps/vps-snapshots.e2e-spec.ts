import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { ImagesService } from '../../libs/vps/src/images/images.service';
import { createAccount, TestAccount } from '../factories/accounts';
import { createImage } from '../factories/images';
import { createService, createServices } from '../factories/services';
import { runCliIn } from '../support/run-cli-in-app';
import { startTestApp, TestApp } from '../support/test-app';
import { waitFor } from '../support/wait-for';

interface Action {
  id: string;
  type: string;
  status: string;
  error: unknown;
  snapshot: { imageId: string; consistency: string | null } | null;
}

/**
 * Snapshots on the simulator. Its tasks take ten minutes here, so an action stays
 * running until a test ends it as a hypervisor would: by finishing the simulator's task row.
 */
describe('VPS snapshots (simulator)', () => {
  let t: TestApp;
  let owner: TestAccount;
  let stranger: TestAccount;
  let system: { id: string; slug: string };

  beforeAll(async () => {
    t = await startTestApp({ COMPUTE_TRANSITION_DELAY_MS: '600000' });
    owner = await createAccount(t);
    stranger = await createAccount(t);
    system = await createImage(t, { gib: 2 });
  });
  afterAll(() => t.close());

  const api = (method: 'get' | 'post' | 'delete', path: string, bearer?: string) => {
    const req = request(t.http)[method](path);
    return bearer ? req.set('Authorization', bearer) : req;
  };
  const snapshot = (serviceId: string, body: object, bearer = owner.bearer) =>
    api('post', `/api/services/${serviceId}/instance/snapshots`, bearer).send(body);
  const rebuild = (serviceId: string, image: string, bearer = owner.bearer) =>
    api('post', `/api/services/${serviceId}/instance/rebuild`, bearer).send({ image });
  const images = async (bearer: string) =>
    (await api('get', '/api/images?pageSize=100', bearer).expect(200)).body.data as { id: string; type: string }[];
  const powerState = async (id: string) => (await t.get(`/api/services/${id}`, owner.bearer).expect(200)).body.instance.powerState;
  const snapshotRows = async (accountId: string) =>
    (await t.db.query(`SELECT id, status FROM images WHERE account_id = $1 ORDER BY created_at`, [accountId])) as {
      id: string;
      status: string;
    }[];

  /** The simulated hypervisor finishes the action's task now; resolves with the action once recorded. */
  async function finish(serviceId: string, actionId: string, bearer = owner.bearer): Promise<Action> {
    // The runner hands the task to the simulator once its job is taken: it may not be there yet.
    await waitFor(
      () =>
        t.db.query(
          `WITH done AS (UPDATE compute_simulator_tasks SET completes_at = now() WHERE id = $1 RETURNING id) SELECT id FROM done`,
          [actionId],
        ),
      (rows: unknown[]) => rows.length === 1,
      20_000,
    );
    return waitFor(
      async () => (await api('get', `/api/services/${serviceId}/instance/actions/${actionId}`, bearer).expect(200)).body as Action,
      (action) => action.status !== 'running',
      20_000,
    );
  }

  /** A snapshot made and finished; returns the action and the image. */
  async function snapshotted(serviceId: string, name: string, account = owner) {
    const res = await snapshot(serviceId, { name }, account.bearer).expect(202);
    const action = await finish(serviceId, res.body.id, account.bearer);
    expect(action.status).toBe('succeeded');
    const image = (await api('get', `/api/images/${action.snapshot!.imageId}`, account.bearer).expect(200)).body;
    return { action, image };
  }

  it('answers 401 without a token', async () => {
    const vps = await createService(t, owner.id, { image: system.slug });
    await snapshot(vps.id, { name: 'x' }, '').expect(401);
    await api('delete', `/api/images/${system.id}`).expect(401);
  });

  it('snapshots a running VPS: 202 with the action and Location, an image of the account being made, then available with its size', async () => {
    const vps = await createService(t, owner.id, { image: system.slug });
    const res = await snapshot(vps.id, { name: '  before upgrade  ' }, owner.keyBearer).expect(202);
    expect(res.body).toMatchObject({ serviceId: vps.id, type: 'snapshot', status: 'running', snapshot: { consistency: null } });
    expect(res.headers.location).toMatch(new RegExp(`/api/services/${vps.id}/instance/actions/${res.body.id}$`));
    const imageId = res.body.snapshot.imageId as string;
    const creating = (await api('get', `/api/images/${imageId}`, owner.bearer).expect(200)).body;
    expect(creating).toMatchObject({ type: 'snapshot', status: 'creating', name: 'before upgrade', sizeBytes: 0 });
    expect(await powerState(vps.id)).toBe('running');

    const done = await finish(vps.id, res.body.id);
    expect(done).toMatchObject({ status: 'succeeded', error: null, snapshot: { imageId, consistency: 'crash' } });
    const image = (await api('get', `/api/images/${imageId}`, owner.bearer).expect(200)).body;
    expect(image).toEqual({
      id: imageId,
      slug: expect.stringMatching(/^snapshot-[0-9a-f]{8}-[0-9a-f]{4}$/),
      name: 'before upgrade',
      type: 'snapshot',
      osFamily: 'debian',
      osVersion: '12',
      minDiskGb: 25,
      sizeBytes: expect.any(Number),
      createdFrom: { serviceId: vps.id },
      status: 'available',
      createdAt: expect.any(String),
    });
    expect(image.sizeBytes).toBeGreaterThan(0);
    expect(await powerState(vps.id)).toBe('running');

    const listed = await images(owner.bearer);
    expect(listed.find((i) => i.id === imageId)).toMatchObject({ type: 'snapshot', createdFrom: { serviceId: vps.id } });
    expect(listed.find((i) => i.id === system.id)).toMatchObject({ type: 'system', createdFrom: null, sizeBytes: 512 });
    const events = await t.get(`/api/events?action=instance.snapshot&entityType=service&entityId=${vps.id}`, owner.bearer).expect(200);
    expect(events.body.data).toHaveLength(1);
    expect(events.body.data[0]).toMatchObject({
      actor: { type: 'api_key' },
      details: { actionId: res.body.id, imageId, slug: image.slug, name: 'before upgrade' },
    });
  });

  it('snapshots a stopped VPS, which stays stopped: its disk is at rest, so the copy is consistent', async () => {
    const vps = await createService(t, owner.id, { image: system.slug });
    const stop = await api('post', `/api/services/${vps.id}/instance/stop`, owner.bearer).expect(202);
    expect((await finish(vps.id, stop.body.id)).status).toBe('succeeded');
    const { action, image } = await snapshotted(vps.id, 'cold copy');
    expect(action.snapshot).toEqual({ imageId: image.id, consistency: 'filesystem' });
    expect(await powerState(vps.id)).toBe('stopped');
  });

  it('answers 409 action_in_progress to every other action while a snapshot runs, and reserves no image for them', async () => {
    const vps = await createService(t, owner.id, { image: system.slug });
    const res = await snapshot(vps.id, { name: 'busy' }).expect(202);
    const before = await snapshotRows(owner.id);
    for (const path of ['start', 'stop', 'reboot']) {
      const busy = await api('post', `/api/services/${vps.id}/instance/${path}`, owner.bearer);
      expect({ path, status: busy.status, code: busy.body.code }).toEqual({ path, status: 409, code: 'action_in_progress' });
    }
    for (const busy of [await rebuild(vps.id, system.slug), await snapshot(vps.id, { name: 'second' })]) {
      expect({ status: busy.status, code: busy.body.code }).toEqual({ status: 409, code: 'action_in_progress' });
    }
    expect(await snapshotRows(owner.id)).toEqual(before);
    // A snapshot still being made cannot be deleted either.
    const deleting = await api('delete', `/api/images/${res.body.snapshot.imageId}`, owner.bearer).expect(409);
    expect(deleting.body).toMatchObject({ code: 'invalid_state', detail: expect.stringContaining('still being made') });
    expect((await finish(vps.id, res.body.id)).status).toBe('succeeded');
  });

  it('is the account’s alone: another account gets 404 for it, never lists it, cannot rebuild or provision from it, nor delete it', async () => {
    const vps = await createService(t, owner.id, { image: system.slug });
    const { image } = await snapshotted(vps.id, 'private');
    expect((await api('get', `/api/images/${image.id}`, stranger.bearer).expect(404)).body.code).toBe('not_found');
    expect((await images(stranger.bearer)).map((i) => i.id)).not.toContain(image.id);
    expect((await images(stranger.bearer)).every((i) => i.type === 'system')).toBe(true);
    const theirs = await createService(t, stranger.id, { image: system.slug });
    for (const ref of [image.id, image.slug]) {
      const refused = await rebuild(theirs.id, ref, stranger.bearer).expect(400);
      expect(refused.body).toMatchObject({ code: 'invalid_input', errors: [{ field: 'image' }] });
      await expect(createService(t, stranger.id, { image: ref })).rejects.toMatchObject({ status: 400 });
    }
    expect((await api('delete', `/api/images/${image.id}`, stranger.bearer).expect(404)).body.code).toBe('not_found');
    // Nor through the owner's VPS: a snapshot of another account's service is a 404 like any of its actions.
    expect((await snapshot(vps.id, { name: 'theirs' }, stranger.bearer).expect(404)).body.code).toBe('not_found');
    expect((await api('get', `/api/images/${image.id}`, owner.bearer).expect(200)).body.status).toBe('available');
    expect((await t.db.query('SELECT count(*)::int AS n FROM images WHERE account_id = $1', [stranger.id]))[0].n).toBe(0);
  });

  it('rebuilds from the snapshot by slug or id, and provisions a new VPS from it (service:provision --image)', async () => {
    const vps = await createService(t, owner.id, { image: system.slug });
    const { image } = await snapshotted(vps.id, 'golden');
    const res = await rebuild(vps.id, image.slug).expect(202);
    expect((await finish(vps.id, res.body.id)).status).toBe('succeeded');
    const imageOf = async (id: string) => (await t.db.query('SELECT image_id FROM vps_instances WHERE service_id = $1', [id]))[0].image_id;
    expect(await imageOf(vps.id)).toBe(image.id);
    const other = await createService(t, owner.id, { image: system.slug });
    const byId = await rebuild(other.id, image.id).expect(202);
    expect((await finish(other.id, byId.body.id)).status).toBe('succeeded');
    expect(await imageOf(other.id)).toBe(image.id);
    const provisioned = await runCliIn(t.app, ['service:provision', '--email', owner.email, '--type', 'vps', '--image', image.slug]);
    expect(provisioned.stderr).toBe('');
    expect(await imageOf(provisioned.lines[0].id)).toBe(image.id);
  });

  it('deletes an unused snapshot (204, gone everywhere, recorded), and refuses one a VPS is built on, and system images', async () => {
    const vps = await createService(t, owner.id, { image: system.slug });
    const { image: used } = await snapshotted(vps.id, 'in use');
    const res = await rebuild(vps.id, used.id).expect(202);
    // Chosen by a rebuild (running or done): the VPS's disk is built on it.
    const inUse = await api('delete', `/api/images/${used.id}`, owner.bearer).expect(409);
    expect(inUse.body).toMatchObject({ code: 'invalid_state', detail: expect.stringContaining('built on this snapshot') });
    await finish(vps.id, res.body.id);
    await api('delete', `/api/images/${used.id}`, owner.bearer).expect(409);

    const { image } = await snapshotted(vps.id, 'spare');
    await api('delete', `/api/images/${image.id}`, owner.keyBearer).expect(204);
    await api('get', `/api/images/${image.id}`, owner.bearer).expect(404);
    expect((await images(owner.bearer)).map((i) => i.id)).not.toContain(image.id);
    expect((await rebuild(vps.id, image.slug).expect(400)).body.code).toBe('invalid_input');
    expect((await api('delete', `/api/images/${image.id}`, owner.bearer).expect(404)).body.code).toBe('not_found');
    const events = await t.get(`/api/events?action=image.delete&entityType=image&entityId=${image.id}`, owner.bearer).expect(200);
    expect(events.body.data).toHaveLength(1);
    expect(events.body.data[0].details).toEqual({ slug: image.slug, name: 'spare' });

    const refused = await api('delete', `/api/images/${system.id}`, owner.bearer).expect(403);
    expect(refused.body).toMatchObject({ code: 'forbidden', detail: expect.stringContaining('System images') });
    expect((await api('get', `/api/images/${system.id}`, owner.bearer).expect(200)).body.status).toBe('available');
  });

  it('finishes a deletion left under way (its hypervisor refused, or its process died): the sweep deletes it once, recorded as the system', async () => {
    const vps = await createService(t, owner.id, { image: system.slug });
    const { image: left } = await snapshotted(vps.id, 'left');
    const { image: recent } = await snapshotted(vps.id, 'recent');
    // What a DELETE answered 503 (or cut by a kill) leaves: the row `deleting`, its volumes maybe still there.
    await t.db.query(`UPDATE images SET status = 'deleting', deleted_at = now() - interval '10 minutes' WHERE id = $1`, [left.id]);
    await t.db.query(`UPDATE images SET status = 'deleting', deleted_at = now() WHERE id = $1`, [recent.id]);

    expect(await t.app.get(ImagesService).finishStaleDeletions(300)).toEqual([left.id]);
    expect(await snapshotRows(owner.id)).toEqual(
      expect.arrayContaining([
        { id: left.id, status: 'deleted' },
        { id: recent.id, status: 'deleting' },
      ]),
    );
    const events = await t.get(`/api/events?action=image.delete&entityType=image&entityId=${left.id}`, owner.bearer).expect(200);
    expect(events.body.data).toEqual([expect.objectContaining({ details: { slug: left.slug, name: 'left' } })]);
    expect(events.body.data[0].actor).toMatchObject({ type: 'system' });
    // The recent one is a deletion under way: its own request ends it, recorded once.
    await api('delete', `/api/images/${recent.id}`, owner.bearer).expect(204);
    expect(await t.app.get(ImagesService).finishStaleDeletions(0)).toEqual([]);
    const recorded = await t.get(`/api/events?action=image.delete&entityType=image&entityId=${recent.id}`, owner.bearer).expect(200);
    expect(recorded.body.data).toHaveLength(1);
  });

  it('keeps at most SNAPSHOTS_PER_ACCOUNT (10) snapshots per account, those being made included: 409 quota_exceeded past it', async () => {
    const account = await createAccount(t);
    const vpses = await createServices(t, account.id, 11, { image: system.slug });
    const started = [];
    for (const vps of vpses.slice(0, 10))
      started.push((await snapshot(vps.id, { name: `n${started.length}` }, account.bearer).expect(202)).body);
    const refused = await snapshot(vpses[10].id, { name: 'one too many' }, account.bearer).expect(409);
    expect(refused.body).toMatchObject({ code: 'quota_exceeded', detail: expect.stringContaining('at most 10 snapshots') });
    expect(refused.headers['content-type']).toMatch(/application\/problem\+json/);
    expect((await api('get', `/api/services/${vpses[10].id}/instance/actions`, account.bearer).expect(200)).body.data).toEqual([]);
    expect(await snapshotRows(account.id)).toHaveLength(10);
    // Another account is not held back by it.
    const vps = await createService(t, owner.id, { image: system.slug });
    await finish(vps.id, (await snapshot(vps.id, { name: 'mine' }).expect(202)).body.id);

    for (const [i, action] of started.entries()) await finish(vpses[i].id, action.id, account.bearer);
    await api('delete', `/api/images/${started[0].snapshot.imageId}`, account.bearer).expect(204);
    await snapshot(vpses[10].id, { name: 'room again' }, account.bearer).expect(202);
  });

  it('refuses bad requests with the problem shape and changes nothing', async () => {
    const vps = await createService(t, owner.id, { image: system.slug });
    const before = await snapshotRows(owner.id);
    for (const body of [
      {},
      { name: '' },
      { name: '   ' },
      { name: 'x'.repeat(101) },
      { name: 42 },
      { name: 'a\u0007b' },
      { name: 'ok', extra: 1 },
    ]) {
      const res = await snapshot(vps.id, body);
      expect({ body, status: res.status, code: res.body.code }).toEqual({ body, status: 400, code: 'invalid_input' });
    }
    expect((await snapshot('not-a-uuid', { name: 'x' }).expect(400)).body.code).toBe('invalid_input');
    expect((await snapshot(randomUUID(), { name: 'x' }).expect(404)).body.code).toBe('not_found');
    const storage = await createService(t, owner.id, { type: 'object_storage' });
    expect((await snapshot(storage.id, { name: 'x' }).expect(404)).body.code).toBe('not_found');
    const suspended = await createService(t, owner.id, { image: system.slug, status: 'suspended' });
    expect((await snapshot(suspended.id, { name: 'x' }).expect(409)).body.code).toBe('invalid_state');
    expect((await api('delete', '/api/images/not-a-uuid', owner.bearer).expect(400)).body.code).toBe('invalid_input');
    expect((await api('delete', `/api/images/${randomUUID()}`, owner.bearer).expect(404)).body.code).toBe('not_found');
    expect(await snapshotRows(owner.id)).toEqual(before);
    expect((await api('get', `/api/services/${vps.id}/instance/actions`, owner.bearer).expect(200)).body.data).toEqual([]);
  });

  it('keeps snapshots when their VPS is terminated; deleting the account deletes them', async () => {
    const account = await createAccount(t);
    const vps = await createService(t, account.id, { image: system.slug });
    const { image } = await snapshotted(vps.id, 'outlives', account);
    const terminated = await runCliIn(t.app, ['service:set-status', '--id', vps.id, '--status', 'terminated']);
    expect(terminated.code).toBe(0);
    expect((await api('get', `/api/images/${image.id}`, account.bearer).expect(200)).body).toMatchObject({
      status: 'available',
      createdFrom: { serviceId: vps.id },
    });
    await t.db.query('DELETE FROM accounts WHERE id = $1', [account.id]);
    expect(await t.db.query('SELECT id FROM images WHERE id = $1', [image.id])).toEqual([]);
  });
});
