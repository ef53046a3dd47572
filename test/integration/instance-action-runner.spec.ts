import { EventEmitter2 } from '@nestjs/event-emitter';
import { JobQueue } from '@app/core';
import { ObjectStorageModule } from '@app/object-storage';
import { ComputeProvider, ComputeProviderError, InstanceActionFinishedEvent, VpsModule } from '@app/vps';
import { ServiceProvisioner } from '../../libs/services/src/service-provisioner';
import { InstanceActionHistory } from '../../libs/vps/src/actions/instance-action-history';
import { ACTION_TIMEOUT_MS } from '../../libs/vps/src/actions/instance-action-runner';
import { InstanceActionsService } from '../../libs/vps/src/actions/instance-actions.service';
import { ServicesService } from '../../libs/services/src/services.service';
import { callerFor, startTestModule, TestModule } from '../support/test-module';
import { NOT_DATE } from '../support/clock';
import { TEST_DATABASE_URL } from '../support/test-env';
import { waitFor } from '../support/wait-for';
import { FakeCompute } from './fake-compute';

describe('InstanceActionRunner (TestingModule on the real database, a fake hypervisor)', () => {
  let m: TestModule;
  let compute: FakeCompute;
  let actions: InstanceActionsService;
  const events: InstanceActionFinishedEvent[] = [];
  beforeAll(async () => {
    compute = new FakeCompute();
    m = await startTestModule([VpsModule, ObjectStorageModule], {}, [{ provide: ComputeProvider, useValue: compute }]);
    actions = m.get(InstanceActionsService);
    const emitter = m.get(EventEmitter2);
    for (const name of ['instance.action_succeeded', 'instance.action_failed'])
      emitter.on(name, (e: InstanceActionFinishedEvent) => events.push(e));
    // No HTTP server in this tier: the job workers are started by hand, as the server's bootstrap does.
    await m.get(JobQueue).startWorkers();
  });
  afterAll(() => m.close());
  beforeEach(() => (events.length = 0));

  async function vps(powerState: 'running' | 'stopped') {
    const accountId = await m.accountId();
    const [service] = await m.get(ServiceProvisioner).provision(accountId, { type: 'vps', name: 'web', powerState });
    return { accountId, serviceId: service.id };
  }
  const sentTask = (actionId: string) =>
    waitFor(
      async () => compute.actions.filter((a) => a.key === actionId),
      (sent) => sent.length > 0,
    );
  const settled = (accountId: string, serviceId: string, actionId: string) =>
    waitFor(
      () => m.get(InstanceActionHistory).get(accountId, serviceId, actionId),
      (action) => action.status !== 'running',
    );
  // On PostgreSQL the run's database is shared: the runner also finishes actions other suites left running.
  const eventsOf = (accountId: string) => events.filter((e) => e.accountId === accountId);
  const powerState = async (accountId: string, serviceId: string) =>
    (await m.get(ServicesService).get(accountId, serviceId)).instance?.powerState;

  it('sends the action once, keyed by its id, and on success records the target state and publishes after commit', async () => {
    const { accountId, serviceId } = await vps('stopped');
    const action = await actions.request(callerFor(accountId), serviceId, 'start');
    expect(await powerState(accountId, serviceId)).toBe('starting');
    expect(await sentTask(action.id)).toEqual([{ serviceId, operation: 'start', key: action.id }]);
    expect(eventsOf(accountId)).toEqual([]);
    compute.tasks.set(`task-${action.id}`, { state: 'succeeded' });
    expect(await settled(accountId, serviceId, action.id)).toMatchObject({
      status: 'succeeded',
      error: null,
      notice: null,
      finishedAt: expect.any(String),
    });
    expect(await powerState(accountId, serviceId)).toBe('running');
    expect(compute.actions.filter((a) => a.key === action.id)).toHaveLength(1);
    await waitFor(
      async () => eventsOf(accountId).length,
      (n) => n > 0,
    );
    expect(eventsOf(accountId)).toEqual([
      expect.objectContaining({
        name: 'instance.action_succeeded',
        accountId,
        payload: { serviceId, serviceName: 'web', actionId: action.id, type: 'start', error: null },
      }),
    ]);
  });

  // A clock step: the action's age was this process's wall clock less the database's start time; a
  // replica eleven minutes ahead failed every action it picked up as timed out. On PostgreSQL only:
  // the embedded PGlite reads its clock from this process, so it moves with it.
  (TEST_DATABASE_URL ? it : it.skip)(
    'finishes an action on a replica whose wall clock is past the action timeout ahead of the database',
    async () => {
      const { accountId, serviceId } = await vps('stopped');
      jest.useFakeTimers({ now: Date.now() + ACTION_TIMEOUT_MS + 60_000, advanceTimers: true, doNotFake: NOT_DATE });
      try {
        const action = await actions.request(callerFor(accountId), serviceId, 'start');
        await sentTask(action.id);
        compute.tasks.set(`task-${action.id}`, { state: 'succeeded' });
        expect(await settled(accountId, serviceId, action.id)).toMatchObject({ status: 'succeeded', error: null });
      } finally {
        jest.useRealTimers();
      }
    },
  );

  it('records a notice of how the hypervisor got there', async () => {
    const { accountId, serviceId } = await vps('running');
    const action = await actions.request(callerFor(accountId), serviceId, 'stop');
    await sentTask(action.id);
    compute.tasks.set(`task-${action.id}`, {
      state: 'succeeded',
      notice: { code: 'forced_power_off', message: 'The guest ignored the shutdown.' },
    });
    expect(await settled(accountId, serviceId, action.id)).toMatchObject({ status: 'succeeded', notice: { code: 'forced_power_off' } });
    expect(await powerState(accountId, serviceId)).toBe('stopped');
  });

  it('on a failed task restores the state it started from and publishes instance.action_failed with the error', async () => {
    const { accountId, serviceId } = await vps('running');
    const action = await actions.request(callerFor(accountId), serviceId, 'stop');
    await sentTask(action.id);
    compute.tasks.set(`task-${action.id}`, { state: 'failed', error: { code: 'guest_busy', message: 'The guest refused.' } });
    expect(await settled(accountId, serviceId, action.id)).toMatchObject({
      status: 'failed',
      error: { code: 'guest_busy', message: 'The guest refused.' },
    });
    expect(await powerState(accountId, serviceId)).toBe('running');
    await waitFor(
      async () => eventsOf(accountId).length,
      (n) => n > 0,
    );
    expect(eventsOf(accountId).map((e) => [e.name, e.payload.error?.code])).toEqual([['instance.action_failed', 'guest_busy']]);
  });

  it('believes the hypervisor over the planned target when it reports a settled state', async () => {
    const { accountId, serviceId } = await vps('stopped');
    const action = await actions.request(callerFor(accountId), serviceId, 'start');
    await sentTask(action.id);
    compute.states.set(serviceId, 'stopped');
    compute.tasks.set(`task-${action.id}`, { state: 'succeeded' });
    await settled(accountId, serviceId, action.id);
    expect(await powerState(accountId, serviceId)).toBe('stopped');
    compute.states.delete(serviceId);
  });

  it('fails the action with the code of a refusal; tries again after an unreachable hypervisor', async () => {
    const refused = await vps('stopped');
    compute.refuseNextAction = new ComputeProviderError('not_found', 'No such machine.');
    const action = await actions.request(callerFor(refused.accountId), refused.serviceId, 'start');
    expect(await settled(refused.accountId, refused.serviceId, action.id)).toMatchObject({
      status: 'failed',
      error: { code: 'not_found' },
    });
    expect(await powerState(refused.accountId, refused.serviceId)).toBe('stopped');

    const retried = await vps('stopped');
    compute.refuseNextAction = new ComputeProviderError('unreachable', 'Connection refused.', true);
    const second = await actions.request(callerFor(retried.accountId), retried.serviceId, 'start');
    expect(await sentTask(second.id)).toHaveLength(1);
    compute.tasks.set(`task-${second.id}`, { state: 'succeeded' });
    expect(await settled(retried.accountId, retried.serviceId, second.id)).toMatchObject({ status: 'succeeded' });
  });

  it('refuses a second action while one runs, and an action on another account’s VPS as missing', async () => {
    const { accountId, serviceId } = await vps('running');
    const action = await actions.request(callerFor(accountId), serviceId, 'reboot');
    await expect(actions.request(callerFor(accountId), serviceId, 'stop')).rejects.toMatchObject({ status: 409 });
    await expect(actions.request(callerFor(await m.accountId()), serviceId, 'stop')).rejects.toMatchObject({ status: 404 });
    await sentTask(action.id);
    compute.tasks.set(`task-${action.id}`, { state: 'succeeded' });
    await settled(accountId, serviceId, action.id);
  });
});
