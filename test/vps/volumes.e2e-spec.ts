import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { VolumePurgeJob } from '../../libs/vps/src/volumes/volume-purge.job';
import { VolumeReconcileJob } from '../../libs/vps/src/volumes/volume-reconcile.job';
import { VolumeBackend } from '@app/vps';
import { createAccount, TestAccount } from '../factories/accounts';
import { createService } from '../factories/services';
import { runCliIn } from '../support/run-cli-in-app';
import { startTestApp, TestApp } from '../support/test-app';
import { waitForOrFail } from '../support/wait-for';

/**
 * Volumes as a kind of service on the simulator (issue 53): provisioning by the operator, priced per
 * GiB, the `volume` part, attach, detach and resize as actions with their rules (ownership, region,
 * one VPS at a time, the per-VPS limit, grow only), the VPS's `instance.volumes`, termination on
 * both sides, scopes and the activity log. The bytes on a real guest: volumes-guests-libvirt.e2e-spec.ts.
 */
describe('Volumes (simulator)', () => {
  let t: TestApp;
  let owner: TestAccount;
  let stranger: TestAccount;
  let vps: string;

  beforeAll(async () => {
    t = await startTestApp({ VOLUMES_PER_VPS: '2', BACKUP_TERMINATED_GRACE_HOURS: '0' });
    owner = await createAccount(t);
    stranger = await createAccount(t);
    vps = (await createService(t, owner.id, { name: 'db-1', region: 'eu-central' })).id;
  });
  afterAll(() => t.close());

  const provision = async (...args: string[]) => {
    const run = await runCliIn(t.app, ['service:provision', '--email', owner.email, '--type', 'volume', ...args]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    return run.lines[0] as { id: string; price: number; volume: Record<string, unknown> };
  };
  const post = (path: string, body: object = {}, who: TestAccount = owner, bearer = who.bearer) =>
    request(t.http).post(path).set('Authorization', bearer).send(body);
  const volumeOf = async (id: string) => (await t.get(`/api/services/${id}`, owner.bearer).expect(200)).body.volume;
  const finished = async (location: string, who: TestAccount = owner) =>
    waitForOrFail(
      async () => (await t.get(new URL(location).pathname, who.bearer).expect(200)).body,
      (action) => action.status !== 'running',
      20_000,
      (action) => `the action is still ${action.status}`,
    );
  const act = async (id: string, verb: 'attach' | 'detach' | 'resize', body: object = {}) => {
    const res = await post(`/api/services/${id}/volume/${verb}`, body).expect(202);
    expect(res.headers.location).toMatch(new RegExp(`/api/services/${id}/volume/actions/${res.body.id}$`));
    return { started: res.body, ended: await finished(res.headers.location) };
  };

  it('is provisioned by the operator with a size and region, priced per GiB, and shown as a detached volume', async () => {
    const made = await provision('--size-gb', '50', '--region', 'eu-west', '--name', 'archive');
    expect(made.price).toBe(2.2);
    expect(made.volume).toEqual({ sizeGb: 50, region: 'eu-west', state: 'detached', attachedTo: null, device: null });
    const service = (await t.get(`/api/services/${made.id}`, owner.bearer).expect(200)).body;
    expect(service).toMatchObject({ type: 'volume', name: 'archive', price: 2.2, instance: null, objectStorage: null });
    expect(service.volume).toEqual(made.volume);
    expect((await t.get(`/api/services/${made.id}/volume`, owner.bearer).expect(200)).body).toEqual(made.volume);
    const list = (await t.get('/api/services?type=volume', owner.bearer).expect(200)).body.data;
    expect(list.map((s: { id: string }) => s.id)).toContain(made.id);
    expect(list.every((s: { type: string }) => s.type === 'volume')).toBe(true);
    const smallest = await provision();
    expect(smallest.volume).toMatchObject({ sizeGb: 10, region: 'eu-central' });
    expect(smallest.price).toBe(0.44);
  });

  it("refuses a size outside the product, a region it does not know and another kind's option", async () => {
    const refused = async (args: string[], message: RegExp) => {
      const run = await runCliIn(t.app, ['service:provision', '--email', owner.email, '--type', 'volume', ...args]);
      expect(run.code).not.toBe(0);
      expect(run.stderr).toMatch(message);
    };
    await refused(['--size-gb', '5'], /sizeGb must be from 10 to 10240 GiB/);
    await refused(['--size-gb', '20000'], /sizeGb must be from 10 to 10240 GiB/);
    await refused(['--size-gb', 'ten'], /--size-gb must be a whole number of GiB/);
    await refused(['--region', 'mars'], /--region must be one of eu-central, eu-west, us-east/);
    await refused(['--image', 'debian-12'], /--image applies to a vps only/);
  });

  it('attaches to a VPS of the account and region, shows the device on both sides, grows and detaches', async () => {
    const vol = await provision('--size-gb', '20', '--name', 'db-data');
    const attach = await act(vol.id, 'attach', { serviceId: vps });
    expect(attach.started).toMatchObject({ type: 'attach', status: 'running', vpsServiceId: vps, sizeGb: null, finishedAt: null });
    expect(attach.started).toMatchObject({ progress: 0, step: 'waiting to begin' });
    expect(attach.ended).toMatchObject({ status: 'succeeded', error: null, finishedAt: expect.any(String), progress: 100, step: null });
    const device = `/dev/disk/by-id/virtio-vol-${vol.id.replace(/-/g, '').slice(0, 16)}`;
    expect(await volumeOf(vol.id)).toEqual({ sizeGb: 20, region: 'eu-central', state: 'attached', attachedTo: vps, device });
    const instance = (await t.get(`/api/services/${vps}`, owner.bearer).expect(200)).body.instance;
    expect(instance.volumes).toEqual([{ id: vol.id, name: 'db-data', sizeGb: 20, state: 'attached', device }]);
    expect((await t.app.get(VolumeBackend).sizeOf({ volumeId: vol.id, region: 'eu-central' })) / 1024 ** 3).toBe(20);

    const smaller = await post(`/api/services/${vol.id}/volume/resize`, { sizeGb: 20 }).expect(400);
    expect(smaller.body.errors).toEqual([{ field: 'sizeGb', message: 'must be larger than the current 20 GiB' }]);
    await post(`/api/services/${vol.id}/volume/resize`, { sizeGb: 'big' }).expect(400);
    const grown = await act(vol.id, 'resize', { sizeGb: 30 });
    expect(grown.ended).toMatchObject({ type: 'resize', status: 'succeeded', sizeGb: 30 });
    expect(await volumeOf(vol.id)).toMatchObject({ sizeGb: 30, state: 'attached' });
    expect((await t.get(`/api/services/${vol.id}`, owner.bearer).expect(200)).body.price).toBe(1.32);

    const detach = await act(vol.id, 'detach');
    expect(detach.ended).toMatchObject({ type: 'detach', status: 'succeeded', vpsServiceId: vps });
    expect(await volumeOf(vol.id)).toEqual({ sizeGb: 30, region: 'eu-central', state: 'detached', attachedTo: null, device: null });
    expect((await t.get(`/api/services/${vps}`, owner.bearer).expect(200)).body.instance.volumes).toEqual([]);
    expect((await post(`/api/services/${vol.id}/volume/detach`).expect(409)).body.code).toBe('invalid_state');

    const history = (await t.get(`/api/services/${vol.id}/volume/actions`, owner.bearer).expect(200)).body;
    expect(history.data.map((a: { type: string }) => a.type)).toEqual(['detach', 'resize', 'attach']);
  });

  it('keeps a volume on one VPS at a time, of the account and its region, and a VPS under its limit', async () => {
    const vol = await provision('--name', 'shared');
    const other = await createService(t, owner.id, { name: 'db-2' });
    const west = await createService(t, owner.id, { name: 'west-1', region: 'eu-west' });
    const theirs = await createService(t, stranger.id);
    const code = async (body: object, status: number) =>
      (await post(`/api/services/${vol.id}/volume/attach`, body).expect(status)).body.code;
    expect(await code({ serviceId: theirs.id }, 404)).toBe('not_found');
    expect(await code({ serviceId: vol.id }, 404)).toBe('not_found');
    expect(await code({ serviceId: west.id }, 409)).toBe('region_mismatch');
    const suspended = await createService(t, owner.id, { name: 'suspended-1', status: 'suspended' });
    expect(await code({ serviceId: suspended.id }, 409)).toBe('invalid_state');
    expect((await post(`/api/services/${vol.id}/volume/attach`, { serviceId: 'x' }).expect(400)).body.errors[0].field).toBe('serviceId');
    await act(vol.id, 'attach', { serviceId: other.id });
    expect(await code({ serviceId: vps }, 409)).toBe('volume_in_use');

    const two = await provision();
    const three = await provision();
    await act(two.id, 'attach', { serviceId: other.id });
    const full = await post(`/api/services/${three.id}/volume/attach`, { serviceId: other.id }).expect(409);
    expect(full.body).toMatchObject({ code: 'quota_exceeded', detail: expect.stringContaining('at most 2 volumes') });
    expect(await volumeOf(three.id)).toMatchObject({ state: 'detached', attachedTo: null });
  });

  it("answers 404 for another account's volume, for a VPS's /volume and a volume's /instance", async () => {
    const vol = await provision();
    for (const path of [`/api/services/${vol.id}/volume`, `/api/services/${vol.id}/volume/actions`])
      expect((await t.get(path, stranger.bearer).expect(404)).body.code).toBe('not_found');
    await post(`/api/services/${vol.id}/volume/attach`, { serviceId: vps }, stranger).expect(404);
    await post(`/api/services/${vol.id}/volume/detach`, {}, stranger).expect(404);
    await post(`/api/services/${vol.id}/volume/resize`, { sizeGb: 99 }, stranger).expect(404);
    expect((await t.get(`/api/services/${vps}/volume`, owner.bearer).expect(404)).body.detail).toMatch(/not a volume/);
    await post(`/api/services/${vol.id}/instance/start`).expect(404);
    await t.get(`/api/services/${vol.id}/volume/actions/${vol.id}`, owner.bearer).expect(404);
    expect(await volumeOf(vol.id)).toMatchObject({ sizeGb: 10, state: 'detached' });
  });

  it('needs the write scope for every action', async () => {
    const reader = await createAccount(t, { scopes: ['read'] });
    const run = await runCliIn(t.app, ['service:provision', '--email', reader.email, '--type', 'volume']);
    const vol = run.lines[0] as { id: string };
    await t.get(`/api/services/${vol.id}/volume`, reader.keyBearer).expect(200);
    for (const [verb, body] of [
      ['attach', { serviceId: vps }],
      ['detach', {}],
      ['resize', { sizeGb: 20 }],
    ] as const) {
      const res = await post(`/api/services/${vol.id}/volume/${verb}`, body, reader, reader.keyBearer).expect(403);
      expect(res.body.code).toBe('insufficient_scope');
    }
  });

  it("detaches a terminated VPS's volumes, keeps a terminated volume's bytes until the grace period ends, then deletes them", async () => {
    const doomed = await createService(t, owner.id, { name: 'doomed' });
    const vol = await provision('--name', 'survivor');
    await act(vol.id, 'attach', { serviceId: doomed.id });
    expect((await runCliIn(t.app, ['service:set-status', '--id', doomed.id, '--status', 'terminated'])).code).toBe(0);
    expect(await volumeOf(vol.id)).toMatchObject({ state: 'detached', attachedTo: null, device: null });
    const backend = t.app.get(VolumeBackend);
    const ref = { volumeId: vol.id, region: 'eu-central' };
    expect(await backend.exists(ref)).toBe(true);

    await act(vol.id, 'attach', { serviceId: vps });
    expect((await runCliIn(t.app, ['service:set-status', '--id', vol.id, '--status', 'terminated'])).code).toBe(0);
    expect(await volumeOf(vol.id)).toMatchObject({ state: 'detached', attachedTo: null });
    expect((await t.get(`/api/services/${vps}`, owner.bearer).expect(200)).body.instance.volumes).toEqual([]);
    expect((await post(`/api/services/${vol.id}/volume/attach`, { serviceId: vps }).expect(409)).body.code).toBe('invalid_state');
    expect(await t.app.get(VolumePurgeJob).run()).toBeGreaterThanOrEqual(1);
    expect(await backend.exists(ref)).toBe(false);
    const [row] = await t.db.query(`SELECT purged_at IS NOT NULL AS purged FROM volumes WHERE service_id = $1`, [vol.id]);
    expect(row.purged).toBe(true);
  });

  it('records attach, detach and resize in the activity log', async () => {
    const account = await createAccount(t);
    const own = await createService(t, account.id);
    const run = await runCliIn(t.app, ['service:provision', '--email', account.email, '--type', 'volume']);
    const vol = run.lines[0] as { id: string };
    const step = async (verb: string, body: object) => {
      const res = await post(`/api/services/${vol.id}/volume/${verb}`, body, account).expect(202);
      await finished(res.headers.location, account);
      return res.body.id as string;
    };
    const attachId = await step('attach', { serviceId: own.id });
    await step('resize', { sizeGb: 15 });
    await step('detach', {});
    const events = (await t.get(`/api/events?entityType=service&pageSize=10`, account.bearer).expect(200)).body.data;
    const volumeEvents = events.filter((e: { action: string }) => e.action.startsWith('volume.')).reverse();
    expect(volumeEvents.map((e: { action: string }) => e.action)).toEqual(['volume.attach', 'volume.resize', 'volume.detach']);
    expect(volumeEvents[0].details).toEqual({ actionId: attachId, vpsServiceId: own.id });
    expect(volumeEvents[1].details).toMatchObject({ fromSizeGb: 10, sizeGb: 15 });
  });

  it('reconciles with the backend: finishes a purge whose bytes are still there, and leaves a volume no service records', async () => {
    const backend = t.app.get(VolumeBackend);
    const vol = await provision('--name', 'half-purged');
    const ref = { volumeId: vol.id, region: 'eu-central' };
    expect(await backend.exists(ref)).toBe(true);
    await t.db.query(`UPDATE services SET status = 'terminated' WHERE id = $1`, [vol.id]);
    await t.db.query(`UPDATE volumes SET purged_at = now() WHERE service_id = $1`, [vol.id]);
    const stray = { volumeId: randomUUID(), region: 'eu-central' };
    await backend.create(stray, 10);
    const result = await t.app.get(VolumeReconcileJob).run();
    expect(result.removed).toContain(vol.id);
    expect(result.unknown).toContain(stray.volumeId);
    expect(await backend.exists(ref)).toBe(false);
    expect(await backend.exists(stray)).toBe(true);
  });
});
