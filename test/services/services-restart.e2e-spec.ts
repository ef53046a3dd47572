import { rmSync } from 'node:fs';
import request from 'supertest';
import { createAccount, TestAccount } from '../factories/accounts';
import { createService } from '../factories/services';
import { InstanceActionJob } from '../../libs/vps/src/actions/instance-action.job';
import { freshDataDir } from '../support/test-database';
import { startTestApp, TestApp } from '../support/test-app';
import { waitFor } from '../support/wait-for';

/** Actions are rows with queued jobs, not timers: a process that stops mid-action leaves them for the next one. */
describe('Services: instance actions across a restart', () => {
  let dataDir: string;
  let t: TestApp | undefined;
  let owner: TestAccount;
  // One DATA_DIR across the restarts; on PGlite it starts as a copy of the run's migrated database.
  beforeAll(() => (dataDir = freshDataDir('services-restart-')));
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  const start = async (delayMs: number) => (t = await startTestApp({ DATA_DIR: dataDir, COMPUTE_TRANSITION_DELAY_MS: String(delayMs) }));
  const restart = async (delayMs: number) => {
    await t!.close();
    return start(delayMs);
  };
  const row = async (id: string) =>
    (await t!.db.query('SELECT status, provider_task, error_code FROM instance_actions WHERE id = $1', [id]))[0];
  const tasks = async (id: string) =>
    (await t!.db.query('SELECT count(*)::int AS n FROM compute_simulator_tasks WHERE id = $1', [id]))[0].n;
  const powerState = async (id: string) =>
    (await t!.db.query('SELECT power_state FROM vps_instances WHERE service_id = $1', [id]))[0].power_state;

  const until = <T>(probe: () => Promise<T>, done: (value: T) => boolean) => waitFor(probe, done, 10_000);

  it('finishes an action the previous process left running, without asking the hypervisor twice', async () => {
    await start(60_000);
    owner = await createAccount(t!);
    const vps = await createService(t!, owner.id, { powerState: 'stopped' });
    const res = await request(t!.http).post(`/api/services/${vps.id}/instance/start`).set('Authorization', owner.bearer).expect(202);
    // The hypervisor accepted the task, which takes a minute; the process stops meanwhile.
    expect(
      (
        await until(
          () => row(res.body.id),
          (r) => r.provider_task !== null,
        )
      ).provider_task,
    ).toBe(res.body.id);
    await restart(0);
    expect(await row(res.body.id)).toMatchObject({ status: 'running' });
    expect(await powerState(vps.id)).toBe('starting');
    // Meanwhile the (simulated) hypervisor finished; the new process only has to notice.
    await t!.db.query(`UPDATE compute_simulator_tasks SET completes_at = now() WHERE id = $1`, [res.body.id]);
    await restart(0);
    expect(
      (
        await until(
          () => row(res.body.id),
          (r) => r.status !== 'running',
        )
      ).status,
    ).toBe('succeeded');
    expect(await tasks(res.body.id)).toBe(1);
    expect(await powerState(vps.id)).toBe('running');
    const api = await request(t!.http).get(`/api/services/${vps.id}/instance/actions/${res.body.id}`).set('Authorization', owner.keyBearer);
    expect(api.body).toMatchObject({ status: 'succeeded', error: null });
  });

  it('sends an action that was recorded but never sent (a crash right after COMMIT) exactly once', async () => {
    await start(0);
    owner = await createAccount(t!);
    const vps = await createService(t!, owner.id, { powerState: 'running' });
    const [action] = await t!.db.query(
      `INSERT INTO instance_actions (service_id, type, status, from_state) VALUES ($1, 'stop', 'running', 'running') RETURNING id`,
      [vps.id],
    );
    await t!.db.query(`UPDATE vps_instances SET power_state = 'stopping' WHERE service_id = $1`, [vps.id]);
    await restart(0);
    expect(
      (
        await until(
          () => row(action.id),
          (r) => r.status !== 'running',
        )
      ).status,
    ).toBe('succeeded');
    expect(await tasks(action.id)).toBe(1);
    expect(await powerState(vps.id)).toBe('stopped');
  });

  it('fails an action found at start that is older than the timeout, restoring the power state', async () => {
    await start(0);
    owner = await createAccount(t!);
    const vps = await createService(t!, owner.id, { powerState: 'stopped' });
    const [action] = await t!.db.query(
      `INSERT INTO instance_actions (service_id, type, status, from_state, started_at) VALUES ($1, 'start', 'running', 'stopped', now() - interval '1 hour') RETURNING id`,
      [vps.id],
    );
    await t!.db.query(`UPDATE vps_instances SET power_state = 'starting' WHERE service_id = $1`, [vps.id]);
    await restart(0);
    expect(
      await until(
        () => row(action.id),
        (r) => r.status !== 'running',
      ),
    ).toMatchObject({ status: 'failed', error_code: 'timeout' });
    expect(await powerState(vps.id)).toBe('stopped');
    const res = await request(t!.http).get(`/api/services/${vps.id}/instance/actions/${action.id}`).set('Authorization', owner.bearer);
    expect(res.body.error).toEqual({ code: 'timeout', message: expect.any(String) });
    // The instance is usable again.
    await request(t!.http).post(`/api/services/${vps.id}/instance/start`).set('Authorization', owner.bearer).expect(202);
  });

  it('adopts, once a minute, a running action that no process drives (its replica died)', async () => {
    await start(0);
    owner = await createAccount(t!);
    const vps = await createService(t!, owner.id, { powerState: 'running' });
    const [action] = await t!.db.query(
      `INSERT INTO instance_actions (service_id, type, status, from_state, started_at) VALUES ($1, 'reboot', 'running', 'running', now() - interval '2 minutes') RETURNING id`,
      [vps.id],
    );
    await t!.db.query(`UPDATE vps_instances SET power_state = 'starting' WHERE service_id = $1`, [vps.id]);
    await t!.app.get(InstanceActionJob).adoptOrphans();
    expect(
      (
        await until(
          () => row(action.id),
          (r) => r.status !== 'running',
        )
      ).status,
    ).toBe('succeeded');
    expect(await powerState(vps.id)).toBe('running');
  });

  it('closes promptly with an action under way (no timer keeps the process, no query after close)', async () => {
    await start(60_000);
    owner = await createAccount(t!);
    const vps = await createService(t!, owner.id, { powerState: 'running' });
    const res = await request(t!.http).post(`/api/services/${vps.id}/instance/stop`).set('Authorization', owner.bearer).expect(202);
    // Closed with the minute-long action still running: close did not wait for it (a hang would be the test's timeout).
    await restart(60_000);
    expect(await row(res.body.id)).toMatchObject({ status: 'running' });
  });
});
