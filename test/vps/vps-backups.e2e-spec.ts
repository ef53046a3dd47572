import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { ApiKeysService } from '@app/api-keys';
import { JobQueue } from '@app/core';
import { BackupRunner } from '../../libs/vps/src/backups/backup-runner';
import { BackupStore } from '../../libs/vps/src/backups/backup-store';
import { BackupsJob } from '../../libs/vps/src/backups/backups.job';
import { createAccount, TestAccount } from '../factories/accounts';
import { createImage } from '../factories/images';
import { createService } from '../factories/services';
import { runCliIn } from '../support/run-cli-in-app';
import { startTestApp, TestApp } from '../support/test-app';
import { waitFor } from '../support/wait-for';

interface Backup {
  id: string;
  status: string;
  sizeBytes: number | null;
  consistency: string | null;
  trigger: string;
  error: { code: string } | null;
}

/**
 * Backups on the simulator and the local backup store: the simulator hands out 256 KiB
 * for a disk, so every step runs for real except the hypervisor's copy. Its tasks take ten minutes
 * here: a restore stays running until the test finishes the simulator's task, as a hypervisor would.
 */
describe('VPS backups (simulator, local store)', () => {
  const RETENTION = 3;
  let t: TestApp;
  let owner: TestAccount;
  let stranger: TestAccount;
  let system: { id: string; slug: string };

  beforeAll(async () => {
    t = await startTestApp({
      COMPUTE_TRANSITION_DELAY_MS: '600000',
      BACKUP_RETENTION: String(RETENTION),
      BACKUP_TERMINATED_GRACE_HOURS: '0',
      SNAPSHOTS_PER_ACCOUNT: '1',
    });
    owner = await createAccount(t);
    stranger = await createAccount(t);
    system = await createImage(t, { gib: 2 });
  });
  afterAll(() => t.close());

  const api = (method: 'get' | 'post', path: string, bearer?: string) => {
    const req = request(t.http)[method](path);
    return bearer ? req.set('Authorization', bearer) : req;
  };
  const base = (id: string) => `/api/services/${id}/instance/backups`;
  const list = async (id: string, bearer = owner.bearer) => (await api('get', base(id), bearer).expect(200)).body.data as Backup[];
  const backUp = (id: string) => t.app.get(BackupRunner).run(id, 'operator');
  const store = () => t.app.get(BackupStore);
  const vps = () => createService(t, owner.id, { image: system.slug });

  async function finishAction(serviceId: string, actionId: string) {
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
      async () => (await api('get', `/api/services/${serviceId}/instance/actions/${actionId}`, owner.bearer).expect(200)).body,
      (action: { status: string }) => action.status !== 'running',
      20_000,
    );
  }

  it('answers 401 without a token', async () => {
    const { id } = await vps();
    await api('get', base(id)).expect(401);
    await api('post', `${base(id)}/enable`).expect(401);
  });

  it('enables and disables daily backups; the instance shows them while enabled; a read-only key is refused', async () => {
    const { id } = await vps();
    expect((await t.get(`/api/services/${id}`, owner.bearer).expect(200)).body.instance.backups).toBeUndefined();
    const readOnlyOwner = await t.app.get(ApiKeysService).create(owner.id, { name: 'ro', scopes: ['read'] });
    const refused = await api('post', `${base(id)}/enable`, `Bearer ${readOnlyOwner.key}`).expect(403);
    expect(refused.body.code).toBe('insufficient_scope');

    const enabled = await api('post', `${base(id)}/enable`, owner.keyBearer).expect(200);
    // The schedule is read against the moment the answer came, not against when this line runs.
    const answeredAt = Date.now();
    expect(enabled.body).toEqual({ enabled: true, nextRunAt: expect.any(String), retention: RETENTION });
    const due = new Date(enabled.body.nextRunAt).getTime();
    expect(due).toBeGreaterThan(answeredAt - 1000);
    expect(due).toBeLessThanOrEqual(answeredAt + 86_400_000);
    // Twice is the same schedule.
    expect((await api('post', `${base(id)}/enable`, owner.bearer).expect(200)).body).toEqual(enabled.body);
    const instance = (await t.get(`/api/services/${id}`, owner.bearer).expect(200)).body.instance;
    expect(instance.backups).toEqual({ enabled: true, nextRunAt: enabled.body.nextRunAt });

    expect((await api('post', `${base(id)}/disable`, owner.bearer).expect(200)).body).toEqual({
      enabled: false,
      nextRunAt: null,
      retention: RETENTION,
    });
    expect((await t.get(`/api/services/${id}`, owner.bearer).expect(200)).body.instance.backups).toBeUndefined();
    const events = await t.get(`/api/events?entityType=service&entityId=${id}`, owner.bearer).expect(200);
    expect(events.body.data.map((e: { action: string }) => e.action)).toEqual(
      expect.arrayContaining(['instance.backups_enable', 'instance.backups_disable']),
    );
  });

  it("answers 404 for another account's VPS and backup, a service that is no VPS, and an unknown backup; 400 for bad input", async () => {
    const { id } = await vps();
    const made = await backUp(id);
    expect(made).toMatchObject({ status: 'available' });
    const backupId = (made as { backupId: string }).backupId;
    for (const path of [`${base(id)}/enable`, `${base(id)}/disable`, `${base(id)}/${backupId}/restore`]) {
      expect((await api('post', path, stranger.bearer).expect(404)).body.code).toBe('not_found');
    }
    await api('post', `${base(id)}/${backupId}/image`, stranger.bearer)
      .send({ name: 'mine' })
      .expect(404);
    await api('get', base(id), stranger.bearer).expect(404);
    const storage = await createService(t, owner.id, { type: 'object_storage' });
    await api('get', base(storage.id), owner.bearer).expect(404);
    await api('post', `${base(storage.id)}/enable`, owner.bearer).expect(404);
    await api('post', `${base(id)}/00000000-0000-4000-8000-000000000000/restore`, owner.bearer).expect(404);

    expect((await api('post', `${base(id)}/not-a-uuid/restore`, owner.bearer).expect(400)).body.code).toBe('invalid_input');
    await api('get', `${base('nope')}`, owner.bearer).expect(400);
    await api('post', `${base(id)}/${backupId}/image`, owner.bearer)
      .send({})
      .expect(400);
    await api('post', `${base(id)}/${backupId}/image`, owner.bearer)
      .send({ name: 'x', extra: 1 })
      .expect(400);
    await api('get', `${base(id)}?pageSize=0`, owner.bearer).expect(400);
  });

  it('makes a backup: listed available with its size and consistency, its object in the store, an activity entry', async () => {
    const { id } = await vps();
    const made = (await backUp(id)) as { backupId: string; status: string };
    expect(made.status).toBe('available');
    const [backup] = await list(id);
    expect(backup).toEqual({
      id: made.backupId,
      createdAt: expect.any(String),
      finishedAt: expect.any(String),
      sizeBytes: 256 * 1024,
      status: 'available',
      consistency: 'crash',
      trigger: 'operator',
      error: null,
    });
    expect(await store().list(`vps/${id}/`)).toEqual([`vps/${id}/${made.backupId}.qcow2`]);
    expect(existsSync(join(t.config.backups.localDir, 'vps', id, `${made.backupId}.qcow2`))).toBe(true);
    const events = await t.get(`/api/events?action=instance.backup&entityType=service&entityId=${id}`, owner.bearer).expect(200);
    expect(events.body.data[0]).toMatchObject({
      status: 'succeeded',
      actor: { type: 'system' },
      details: { backupId: made.backupId, sizeBytes: 256 * 1024, consistency: 'crash' },
    });
  });

  it('keeps exactly BACKUP_RETENTION backups: the oldest rows and objects go', async () => {
    const { id } = await vps();
    const ids: string[] = [];
    for (let i = 0; i < RETENTION + 2; i++) ids.push(((await backUp(id)) as { backupId: string }).backupId);
    const kept = await list(id);
    expect(kept.map((b) => b.id)).toEqual(ids.slice(-RETENTION).reverse());
    expect((await store().list(`vps/${id}/`)).sort()).toEqual(
      ids
        .slice(-RETENTION)
        .map((b) => `vps/${id}/${b}.qcow2`)
        .sort(),
    );
    const rows = await t.db.query(`SELECT count(*)::int AS n FROM vps_backups WHERE service_id = $1`, [id]);
    expect(rows[0].n).toBe(RETENTION);
  });

  it('restores a backup: a 202 restore action with Location that boots the VPS, an activity entry and a notification', async () => {
    const { id } = await vps();
    const { backupId } = (await backUp(id)) as { backupId: string };
    const res = await api('post', `${base(id)}/${backupId}/restore`, owner.keyBearer).expect(202);
    expect(res.body).toMatchObject({ serviceId: id, type: 'restore', status: 'running' });
    expect(res.headers.location).toMatch(new RegExp(`/api/services/${id}/instance/actions/${res.body.id}$`));
    // What the hypervisor may have lost beside the disk: the seed of the install's instance-id (no first boot again).
    const [{ params }] = await t.db.query(`SELECT params FROM instance_actions WHERE id = $1`, [res.body.id]);
    expect(params.restore.machine.seed).toMatchObject({
      instanceId: `iid-${id}`,
      hostname: expect.any(String),
      sshKeys: expect.any(Array),
    });
    expect((await t.get(`/api/services/${id}`, owner.bearer).expect(200)).body.instance.powerState).toBe('starting');
    // Another action while it runs: 409.
    expect((await api('post', `${base(id)}/${backupId}/restore`, owner.bearer).expect(409)).body.code).toBe('action_in_progress');
    expect((await finishAction(id, res.body.id)).status).toBe('succeeded');
    expect((await t.get(`/api/services/${id}`, owner.bearer).expect(200)).body.instance.powerState).toBe('running');
    const restored = await t.get(`/api/events?action=instance.restore&entityType=service&entityId=${id}`, owner.bearer).expect(200);
    expect(restored.body.data[0].details).toMatchObject({ actionId: res.body.id, backupId });
    const notices = await waitFor(
      async () => (await t.get('/api/notifications?pageSize=100', owner.bearer).expect(200)).body.data as { type: string; link: string }[],
      (all) => all.some((n) => n.link.endsWith(res.body.id)),
    );
    expect(notices.find((n) => n.link.endsWith(res.body.id))).toMatchObject({ type: 'instance_action_succeeded' });
  });

  it('refuses to restore a backup that is still running (409 invalid_state)', async () => {
    const { id } = await vps();
    await t.db.query(
      `INSERT INTO vps_backups (service_id, account_id, status, trigger, storage_key) VALUES ($1, $2, 'running', 'schedule', 'vps/x/running.qcow2')`,
      [id, owner.id],
    );
    const [running] = await list(id);
    expect(running.status).toBe('running');
    expect((await api('post', `${base(id)}/${running.id}/restore`, owner.bearer).expect(409)).body.code).toBe('invalid_state');
    await t.db.query(`DELETE FROM vps_backups WHERE id = $1`, [running.id]);
  });

  it('an interrupted backup (its process died) is failed, never available, its leftovers cleaned, the customer told; the next one succeeds', async () => {
    const { id } = await vps();
    const key = `vps/${id}/00000000-0000-4000-8000-0000000000aa.qcow2`;
    // What a process killed mid-upload leaves: a running row whose lease is not renewed, a partial file.
    mkdirSync(join(t.config.backups.localDir, 'vps', id), { recursive: true });
    writeFileSync(join(t.config.backups.localDir, `${key}.partial`), Buffer.alloc(1024));
    expect(await store().list(`vps/${id}/`)).toHaveLength(1);
    await t.db.query(
      `INSERT INTO vps_backups (id, service_id, account_id, status, trigger, storage_key, heartbeat_at)
       VALUES ('00000000-0000-4000-8000-0000000000aa', $1, $2, 'running', 'schedule', $3, now() - interval '10 minutes')`,
      [id, owner.id, key],
    );
    expect((await backUp(id)) as object).toEqual({ skipped: 'a backup of this VPS is running' });
    expect(await t.app.get(BackupsJob).failInterrupted()).toBeGreaterThanOrEqual(1);
    const [failed] = await list(id);
    expect(failed).toMatchObject({ status: 'failed', sizeBytes: null, error: { code: 'interrupted' } });
    const entry = (await t.get(`/api/events?action=instance.backup&entityType=service&entityId=${id}`, owner.bearer).expect(200)).body
      .data[0];
    expect(entry).toMatchObject({ status: 'failed', details: { backupId: failed.id, trigger: 'schedule', errorCode: 'interrupted' } });
    expect(await store().list(`vps/${id}/`)).toEqual([]);
    const notices = await waitFor(
      async () =>
        (await t.get('/api/notifications?pageSize=100', owner.bearer).expect(200)).body.data as { type: string; entity: { id: string } }[],
      (all) => all.some((n) => n.type === 'instance_backup_failed' && n.entity.id === id),
    );
    expect(notices.find((n) => n.type === 'instance_backup_failed' && n.entity.id === id)).toBeDefined();

    expect(await backUp(id)).toMatchObject({ status: 'available' });
    // The failed one goes once a newer backup is available.
    expect((await list(id)).map((b) => b.status)).toEqual(['available']);
  });

  it('runs due backups from the schedule on the job queue and moves the slot a day on', async () => {
    const { id } = await vps();
    await api('post', `${base(id)}/enable`, owner.bearer).expect(200);
    await t.db.query(`UPDATE vps_backup_schedules SET next_run_at = now() - interval '1 minute' WHERE service_id = $1`, [id]);
    await t.app.get(BackupsJob).pass();
    const made = await waitFor(
      () => list(id),
      (all) => all.some((b) => b.status === 'available'),
      20_000,
    );
    expect(made[0]).toMatchObject({ status: 'available', trigger: 'schedule' });
    const next = new Date((await t.get(`/api/services/${id}`, owner.bearer).expect(200)).body.instance.backups.nextRunAt).getTime();
    expect(next).toBeGreaterThan(Date.now());
  });

  it('backup:run makes one backup now and prints it; --no-wait queues one for the workers', async () => {
    const { id } = await vps();
    const ran = await runCliIn(t.app, ['backup:run', '--service', id]);
    expect(ran.code).toBe(0);
    expect(ran.lines).toEqual([{ serviceId: id, backupId: expect.any(String), status: 'available' }]);
    expect(await list(id)).toEqual([expect.objectContaining({ id: ran.lines[0].backupId, trigger: 'operator', status: 'available' })]);
    const queued = await runCliIn(t.app, ['backup:run', '--service', id, '--no-wait']);
    expect(queued.lines).toEqual([{ serviceId: id, queued: true }]);
    const made = await waitFor(
      () => list(id),
      (all) => all.length === 2 && all.every((b) => b.status === 'available'),
      20_000,
    );
    expect(made[0]).toMatchObject({ trigger: 'operator', status: 'available' });
    expect(made).toHaveLength(2);
    expect((await runCliIn(t.app, ['backup:run', '--service', 'nope'])).code).not.toBe(0);
  });

  it('a queued backup whose job runs again (its process died while it ran) makes no second backup: the job carries the backup id', async () => {
    const { id } = await vps();
    await t.app.get(BackupsJob).enqueue(id, 'operator');
    const [made] = await waitFor(
      () => list(id),
      (all) => all.length === 1 && all[0].status === 'available',
      20_000,
    );
    const jobOf = () =>
      t.db.query<{ id: string; state: string; backupId: string; retryLimit: number }[]>(
        `SELECT id, state, data->>'backupId' AS "backupId", retry_limit AS "retryLimit" FROM pgboss.job
          WHERE name = 'vps-backup' AND data->>'serviceId' = $1`,
        [id],
      );
    const [job] = await waitFor(jobOf, (rows) => rows[0]?.state === 'completed', 20_000);
    expect(job).toMatchObject({ backupId: made.id, retryLimit: 3 });
    // What pg-boss does with a job still active at its expiry (its process was killed): it is fetched again.
    await t.db.query(
      `UPDATE pgboss.job SET state = 'retry', start_after = now(), completed_on = NULL WHERE name = 'vps-backup' AND id = $1`,
      [job.id],
    );
    t.app.get(JobQueue).wake('vps-backup');
    await waitFor(jobOf, (rows) => rows[0]?.state === 'completed', 20_000);
    expect(await list(id)).toEqual([expect.objectContaining({ id: made.id, status: 'available' })]);
    expect(await backUp(id)).toMatchObject({ status: 'available' });
    expect(await t.app.get(BackupRunner).run(id, 'operator', made.id)).toEqual({ skipped: 'this backup was begun already' });
  });

  it('turns a backup into a snapshot image of the account, counted toward SNAPSHOTS_PER_ACCOUNT', async () => {
    const { id } = await vps();
    const { backupId } = (await backUp(id)) as { backupId: string };
    const res = await api('post', `${base(id)}/${backupId}/image`, owner.bearer)
      .send({ name: 'from backup' })
      .expect(202);
    expect(res.body).toMatchObject({ type: 'snapshot', status: 'creating', name: 'from backup', createdFrom: { serviceId: id } });
    expect(res.headers.location).toMatch(new RegExp(`/api/images/${res.body.id}$`));
    const image = await waitFor(
      async () => (await api('get', `/api/images/${res.body.id}`, owner.bearer).expect(200)).body,
      (i: { status: string }) => i.status !== 'creating',
      20_000,
    );
    expect(image).toMatchObject({ status: 'available', sizeBytes: 256 * 1024 });
    await api('get', `/api/images/${res.body.id}`, stranger.bearer).expect(404);
    const again = await api('post', `${base(id)}/${backupId}/image`, owner.bearer)
      .send({ name: 'second' })
      .expect(409);
    expect(again.body.code).toBe('quota_exceeded');
  });

  it('terminating a VPS deletes its backups after the grace period: nothing of it is left in the store', async () => {
    const { id } = await vps();
    await api('post', `${base(id)}/enable`, owner.bearer).expect(200);
    await backUp(id);
    expect(await store().list(`vps/${id}/`)).toHaveLength(1);
    expect((await runCliIn(t.app, ['service:set-status', '--id', id, '--status', 'terminated'])).code).toBe(0);
    await t.app.get(BackupsJob).pass();
    expect(await store().list(`vps/${id}/`)).toEqual([]);
    expect(await t.db.query(`SELECT id FROM vps_backups WHERE service_id = $1`, [id])).toEqual([]);
    expect(await t.db.query(`SELECT 1 FROM vps_backup_schedules WHERE service_id = $1`, [id])).toEqual([]);
  });
});
