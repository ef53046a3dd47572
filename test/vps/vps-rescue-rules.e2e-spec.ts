import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { BackupRunner } from '../../libs/vps/src/backups/backup-runner';
import { createAccount, TestAccount } from '../factories/accounts';
import { createImage } from '../factories/images';
import { createService } from '../factories/services';
import { startTestApp, TestApp } from '../support/test-app';
import { waitFor } from '../support/wait-for';
import { capturedLog } from '../support/captured-log';

const RESCUE_SLUG = `rescue-named-${randomUUID().slice(0, 8)}`;

interface Image {
  id: string;
  slug: string;
}

/**
 * What rescue mode leaves and allows: the rescue system is the provider's tool, never a
 * customer's image; a restore waits for the unrescue as a rebuild does; root's password hash is
 * dropped when the rescue action ends. Actions run until a test finishes the simulator's task.
 */
describe('VPS rescue: the rescue image, restore in rescue, the password hash (simulator)', () => {
  let t: TestApp;
  let owner: TestAccount;
  let system: Image;
  let flagged: Image;
  let named: Image;
  const captured = capturedLog();

  beforeAll(async () => {
    t = await startTestApp(
      { COMPUTE_TRANSITION_DELAY_MS: '600000', LOG_LEVEL: 'trace', RATE_LIMIT_RESCUE_PER_HOUR: '100', RESCUE_IMAGE: RESCUE_SLUG },
      captured.logging,
    );
    owner = await createAccount(t);
    system = await createImage(t, { gib: 1 });
    // Both are the provider's: one added with --rescue, one named by RESCUE_IMAGE (the one rescue boots here).
    flagged = await createImage(t, { gib: 1, rescue: true });
    named = await createImage(t, { gib: 1 });
    await t.db.query(`UPDATE images SET slug = $2 WHERE id = $1`, [named.id, RESCUE_SLUG]);
    named = { id: named.id, slug: RESCUE_SLUG };
  });
  afterAll(() => t.close());

  const post = (path: string) => request(t.http).post(path).set('Authorization', owner.bearer);
  const action = async (serviceId: string, id: string) =>
    (await t.get(`/api/services/${serviceId}/instance/actions/${id}`, owner.bearer).expect(200)).body as { status: string };
  const paramsOf = async (id: string) => (await t.db.query(`SELECT params FROM instance_actions WHERE id = $1`, [id]))[0].params;
  /** The simulator's task of the action, once the runner handed it over: finished now, or forgotten (the action fails). */
  async function endTask(serviceId: string, actionId: string, how: 'finish' | 'lose') {
    const sql =
      how === 'finish'
        ? `WITH done AS (UPDATE compute_simulator_tasks SET completes_at = now() WHERE id = $1 RETURNING id) SELECT id FROM done`
        : `WITH done AS (DELETE FROM compute_simulator_tasks WHERE id = $1 RETURNING id) SELECT id FROM done`;
    await waitFor(
      () => t.db.query(sql, [actionId]),
      (rows: unknown[]) => rows.length === 1,
      20_000,
    );
    return waitFor(
      () => action(serviceId, actionId),
      (a) => a.status !== 'running',
      20_000,
    );
  }
  const rescued = async () => {
    const vps = await createService(t, owner.id, { image: system.slug });
    const res = await post(`/api/services/${vps.id}/instance/rescue`).send({}).expect(202);
    return { vps, actionId: res.body.id as string };
  };

  it('hides the rescue images from the list and get, and refuses them in rebuild and provisioning as an unknown image', async () => {
    const listed = (await t.get('/api/images?pageSize=100', owner.bearer).expect(200)).body.data as Image[];
    expect(listed.map((i) => i.id)).toContain(system.id);
    expect(listed.map((i) => i.id)).not.toContain(flagged.id);
    expect(listed.map((i) => i.id)).not.toContain(named.id);
    for (const image of [flagged, named]) {
      expect((await t.get(`/api/images/${image.id}`, owner.bearer).expect(404)).body.code).toBe('not_found');
      expect((await request(t.http).delete(`/api/images/${image.id}`).set('Authorization', owner.bearer).expect(404)).body.code).toBe(
        'not_found',
      );
    }

    const vps = await createService(t, owner.id, { image: system.slug, powerState: 'stopped' });
    const unknown = (await post(`/api/services/${vps.id}/instance/rebuild`).send({ image: 'no-such-image' }).expect(400)).body;
    expect(unknown).toMatchObject({ code: 'invalid_input', errors: [{ field: 'image', message: 'unknown image' }] });
    for (const image of [flagged.slug, flagged.id, named.slug, named.id]) {
      const refused = await post(`/api/services/${vps.id}/instance/rebuild`).send({ image }).expect(400);
      expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(refused.body).toEqual({ ...unknown, detail: unknown.detail.replace('no-such-image', image), requestId: expect.any(String) });
      await expect(createService(t, owner.id, { image })).rejects.toMatchObject({ code: 'invalid_input', errors: unknown.errors });
    }
    expect(await t.db.query(`SELECT 1 FROM instance_actions WHERE service_id = $1`, [vps.id])).toEqual([]);
    // The rescue itself still boots it.
    const { vps: inRescue, actionId } = await rescued();
    expect((await paramsOf(actionId)).rescue.boot.imageId).toBe(named.id);
    expect((await endTask(inRescue.id, actionId, 'finish')).status).toBe('succeeded');
  });

  it('refuses a restore in rescue mode (409 invalid_state) as it refuses a rebuild', async () => {
    const vps = await createService(t, owner.id, { image: system.slug });
    const backup = (await t.app.get(BackupRunner).run(vps.id, 'operator')) as { backupId: string };
    const res = await post(`/api/services/${vps.id}/instance/rescue`).send({}).expect(202);
    expect((await endTask(vps.id, res.body.id, 'finish')).status).toBe('succeeded');
    const restore = await post(`/api/services/${vps.id}/instance/backups/${backup.backupId}/restore`).expect(409);
    expect(restore.body).toMatchObject({ code: 'invalid_state', detail: 'The instance is in rescue mode; unrescue it before a restore.' });
    const rebuild = await post(`/api/services/${vps.id}/instance/rebuild`).send({ image: system.slug }).expect(409);
    expect(rebuild.body.detail).toBe('The instance is in rescue mode; unrescue it before a rebuild.');
    expect(await t.db.query(`SELECT 1 FROM instance_actions WHERE service_id = $1 AND type = 'restore'`, [vps.id])).toEqual([]);
  });

  it.each(['finish', 'lose'] as const)(
    "drops root's password hash when the rescue action ends (%s), and shows it in no response, table or log",
    async (how) => {
      const { vps, actionId } = await rescued();
      // While the rescue runs, its seed still has to be written.
      const hash = (await paramsOf(actionId)).rescue.boot.seed.rootPasswordHash as string;
      expect(hash).toMatch(/^\$6\$/);
      expect((await endTask(vps.id, actionId, how)).status).toBe(how === 'finish' ? 'succeeded' : 'failed');
      const params = await paramsOf(actionId);
      expect(params.rescue.boot.seed).not.toHaveProperty('rootPasswordHash');
      expect(params.rescue.boot).toMatchObject({ imageId: named.id, seed: { hostname: 'rescue' } });

      const responses = [
        await t.get(`/api/services/${vps.id}/instance/actions/${actionId}`, owner.bearer).expect(200),
        await t.get(`/api/services/${vps.id}/instance/actions`, owner.bearer).expect(200),
        await t.get(`/api/services/${vps.id}`, owner.bearer).expect(200),
        await t.get(`/api/events?entityType=service&entityId=${vps.id}`, owner.bearer).expect(200),
      ];
      for (const res of responses) expect(res.text).not.toContain(hash);
      const salt = hash.split('$')[2];
      for (const table of ['instance_actions', 'activity_events', 'notifications', 'vps_rescues', 'idempotency_keys']) {
        const text = JSON.stringify(await t.db.query(`SELECT * FROM ${table}`));
        expect({ table, found: text.includes(salt) }).toEqual({ table, found: false });
      }
      expect(captured.lines.join('')).not.toContain(salt);
    },
  );
});
