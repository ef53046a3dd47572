import request from 'supertest';
import { createAccount, TestAccount } from '../factories/accounts';
import { createImage } from '../factories/images';
import { createService } from '../factories/services';
import { startTestApp, TestApp } from '../support/test-app';
import { waitForOrFail } from '../support/wait-for';

interface Action {
  id: string;
  status: string;
  progress: number;
  step: string | null;
}

/**
 * An action's `progress` and `step` while it runs (issue 58, point 6), on the simulator, whose
 * tasks take ten minutes here: the test moves a task's clock (its row's times) as a hypervisor
 * would move on, and waits for what the API shows, never for a time.
 */
describe('Action progress and step (simulator)', () => {
  let t: TestApp;
  let owner: TestAccount;
  let image: { slug: string };

  beforeAll(async () => {
    t = await startTestApp({ COMPUTE_TRANSITION_DELAY_MS: '600000' });
    owner = await createAccount(t);
    image = await createImage(t, { gib: 1 });
  });
  afterAll(() => t.close());

  /** Every answer read, in order: progress must never go back. */
  const seen: number[] = [];
  const read = async (serviceId: string, actionId: string): Promise<Action> => {
    const action = (await t.get(`/api/services/${serviceId}/instance/actions/${actionId}`, owner.bearer).expect(200)).body as Action;
    seen.push(action.progress);
    return action;
  };
  const until = (serviceId: string, actionId: string, ok: (a: Action) => boolean, what: string) =>
    waitForOrFail(
      () => read(serviceId, actionId),
      ok,
      20_000,
      (last) => `expected ${what}, the action is ${JSON.stringify(last)}`,
    );
  /** The simulated task, once the runner handed it over, `fraction` of its way (1: finished now). */
  const moveTask = (actionId: string, fraction: number) =>
    waitForOrFail(
      () =>
        t.db.query(
          `WITH moved AS (
             UPDATE compute_simulator_tasks SET created_at = now() - $2 * interval '10 minutes', completes_at = now() + (1 - $2) * interval '10 minutes'
              WHERE id = $1 RETURNING id
           ) SELECT id FROM moved`,
          [actionId, fraction],
        ),
      (rows: unknown[]) => rows.length === 1,
      20_000,
      () => `the simulator has no task of ${actionId}`,
    );

  it('a rebuild shows 0 and its queue step, then its steps with rising progress, then 100 and no step', async () => {
    const vps = await createService(t, owner.id, { image: image.slug });
    const res = await request(t.http)
      .post(`/api/services/${vps.id}/instance/rebuild`)
      .set('Authorization', owner.bearer)
      .send({ image: image.slug })
      .expect(202);
    expect(res.body).toMatchObject({ status: 'running', progress: 0, step: 'waiting to begin' });
    const id = res.body.id as string;

    const writing = await until(vps.id, id, (a) => a.step === 'writing the disk from the image', 'the first step');
    expect(writing).toMatchObject({ status: 'running' });
    expect(writing.progress).toBeGreaterThan(0);
    expect(writing.progress).toBeLessThan(100);

    await moveTask(id, 0.5);
    const starting = await until(vps.id, id, (a) => a.step === 'starting the server', 'the second step');
    expect(starting.progress).toBeGreaterThan(writing.progress);
    expect(starting.progress).toBeLessThan(100);
    // Lists of actions show the same.
    const list = (await t.get(`/api/services/${vps.id}/instance/actions`, owner.bearer).expect(200)).body.data as Action[];
    expect(list.find((a) => a.id === id)).toMatchObject({ status: 'running', step: 'starting the server' });

    await moveTask(id, 1);
    const done = await until(vps.id, id, (a) => a.status !== 'running', 'the end');
    expect(done).toMatchObject({ status: 'succeeded', progress: 100, step: null });
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
  });

  it('a stop says it waits for the guest; a failed action keeps where it stopped, without a step', async () => {
    const vps = await createService(t, owner.id, { image: image.slug });
    const stop = await request(t.http).post(`/api/services/${vps.id}/instance/stop`).set('Authorization', owner.bearer).expect(202);
    const waiting = await until(vps.id, stop.body.id, (a) => a.step === 'waiting for the guest to shut down', 'the wait');
    expect(waiting.progress).toBeGreaterThan(0);
    // The hypervisor loses the task: the action fails where it was.
    await t.db.query(`DELETE FROM compute_simulator_tasks WHERE id = $1`, [stop.body.id]);
    const failed = await until(vps.id, stop.body.id, (a) => a.status !== 'running', 'the end');
    expect(failed).toMatchObject({ status: 'failed', step: null });
    expect(failed.progress).toBeGreaterThanOrEqual(waiting.progress);
    expect(failed.progress).toBeLessThan(100);
  });
});
