import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { RATE_LIMIT_BUCKET, REQUIRED_SCOPE } from '@app/core';
import { ComputeProvider } from '@app/vps';
import { ConsoleConnections } from '../../libs/vps/src/console/console-connections';
import { ConsoleService } from '../../libs/vps/src/console/console.service';
import { ConsoleController } from '../../libs/vps/src/console/console.controller';
import { createAccount, TestAccount } from '../factories/accounts';
import { createService } from '../factories/services';
import { runCliIn } from '../support/run-cli-in-app';
import { sharedTestApp, TestApp } from '../support/test-app';
import { waitFor } from '../support/wait-for';

type Action = { id: string; serviceId: string; type: string; status: string; startedAt: string; finishedAt: string | null; error: unknown };

describe('Services: VPS instance actions and console', () => {
  let t: TestApp;
  let owner: TestAccount;
  let stranger: TestAccount;
  beforeAll(async () => {
    t = await sharedTestApp();
    owner = await createAccount(t);
    stranger = await createAccount(t);
  });
  afterEach(() => jest.restoreAllMocks());

  const post = (path: string, bearer?: string) => {
    const req = request(t.http).post(path);
    return bearer ? req.set('Authorization', bearer) : req;
  };
  const get = (path: string, bearer?: string) => {
    const req = request(t.http).get(path);
    return bearer ? req.set('Authorization', bearer) : req;
  };
  const powerState = async (id: string) =>
    (await t.db.query('SELECT power_state FROM vps_instances WHERE service_id = $1', [id]))[0].power_state;

  /**
   * Records events `name` from now on; `about(actionId)` waits (bounded) for the one about that
   * action. Other apps on a shared database may finish other actions meanwhile.
   */
  function recordEvents(name: string) {
    const events = t.app.get(EventEmitter2);
    const seen: any[] = [];
    const listener = (event: unknown) => seen.push(event);
    events.on(name, listener);
    return {
      async about(actionId: string): Promise<any> {
        try {
          return await waitFor(
            async () => seen.find((e) => e.payload.actionId === actionId),
            (event) => event !== undefined,
            5_000,
          );
        } finally {
          events.off(name, listener);
        }
      },
    };
  }

  /** Replaces the provider's answers for one service only; others (another app's actions) keep the simulator's. */
  function stubFor<K extends 'taskStatus' | 'powerState'>(serviceId: string, method: K, answer: Awaited<ReturnType<ComputeProvider[K]>>) {
    const compute = t.app.get(ComputeProvider);
    const original = compute[method].bind(compute) as (...args: any[]) => Promise<any>;
    return jest
      .spyOn(compute, method)
      .mockImplementation(((ref: { serviceId: string }, ...rest: unknown[]) =>
        ref.serviceId === serviceId ? Promise.resolve(answer) : original(ref, ...rest)) as any);
  }

  /** Polls the action until it is no longer running (bounded). */
  function settle(serviceId: string, actionId: string, bearer = owner.bearer): Promise<Action> {
    return waitFor(
      async () => {
        const res = await get(`/api/services/${serviceId}/instance/actions/${actionId}`, bearer);
        expect(res.status).toBe(200);
        return res.body as Action;
      },
      (action) => action.status !== 'running',
      10_000,
    );
  }

  describe('POST /api/services/{id}/instance/start|stop|reboot', () => {
    it('starts a stopped VPS: 202, the action, Location; the action succeeds and the VPS runs', async () => {
      const vps = await createService(t, owner.id, { powerState: 'stopped' });
      const succeeded = recordEvents('instance.action_succeeded');
      const res = await post(`/api/services/${vps.id}/instance/start`, owner.bearer);
      expect(res.status).toBe(202);
      expect(res.body).toEqual({
        id: expect.any(String),
        serviceId: vps.id,
        type: 'start',
        status: 'running',
        startedAt: expect.stringMatching(/Z$/),
        finishedAt: null,
        progress: 0,
        step: 'waiting to begin',
        error: null,
        notice: null,
        snapshot: null,
      });
      expect(res.headers.location).toBe(`${t.config.publicUrl}/api/services/${vps.id}/instance/actions/${res.body.id}`);
      const done = await settle(vps.id, res.body.id);
      expect(done).toMatchObject({ status: 'succeeded', finishedAt: expect.any(String), progress: 100, step: null, error: null });
      expect(new Date(done.finishedAt!).getTime()).toBeGreaterThanOrEqual(new Date(done.startedAt).getTime());
      expect((await get(`/api/services/${vps.id}`, owner.bearer)).body.instance.powerState).toBe('running');
      const event = await succeeded.about(res.body.id);
      expect(event).toMatchObject({
        name: 'instance.action_succeeded',
        accountId: owner.id,
        payload: { serviceId: vps.id, serviceName: vps.name, actionId: res.body.id, type: 'start', error: null },
      });
    });

    it('stops a running VPS and reboots it, each with an API key', async () => {
      const vps = await createService(t, owner.id);
      const stop = await post(`/api/services/${vps.id}/instance/stop`, owner.keyBearer);
      expect(stop.status).toBe(202);
      expect(stop.body.type).toBe('stop');
      expect((await settle(vps.id, stop.body.id)).status).toBe('succeeded');
      expect(await powerState(vps.id)).toBe('stopped');
      const start = await post(`/api/services/${vps.id}/instance/start`, owner.keyBearer).expect(202);
      await settle(vps.id, start.body.id);
      const reboot = await post(`/api/services/${vps.id}/instance/reboot`, owner.keyBearer);
      expect(reboot.status).toBe(202);
      expect(reboot.body.type).toBe('reboot');
      expect((await settle(vps.id, reboot.body.id)).status).toBe('succeeded');
      expect(await powerState(vps.id)).toBe('running');
    });

    it('shows the transitional state while the hypervisor works, and the action in progress', async () => {
      const vps = await createService(t, owner.id, { powerState: 'stopped' });
      const status = stubFor(vps.id, 'taskStatus', { state: 'running' });
      const res = await post(`/api/services/${vps.id}/instance/start`, owner.bearer).expect(202);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect((await get(`/api/services/${vps.id}`, owner.bearer)).body.instance.powerState).toBe('starting');
      expect((await get(`/api/services/${vps.id}/instance/actions/${res.body.id}`, owner.bearer)).body.status).toBe('running');
      for (const action of ['start', 'stop', 'reboot']) {
        const busy = await post(`/api/services/${vps.id}/instance/${action}`, owner.bearer);
        expect({ action, status: busy.status, code: busy.body.code }).toEqual({ action, status: 409, code: 'action_in_progress' });
      }
      status.mockRestore();
      expect((await settle(vps.id, res.body.id)).status).toBe('succeeded');
      expect(await powerState(vps.id)).toBe('running');
    });

    it('records a failure from the hypervisor: failed with an error, power state restored, instance.action_failed', async () => {
      const vps = await createService(t, owner.id, { powerState: 'stopped' });
      // What the hypervisor itself said goes to the operator's service:actions, never to the customer.
      const said = "virsh start failed: error: Cannot access storage file '/var/lib/libvirt/images/node-7/disk.qcow2'";
      stubFor(vps.id, 'taskStatus', {
        state: 'failed',
        error: { code: 'hypervisor_error', message: 'Node is in maintenance.' },
        operatorDetail: said,
      });
      stubFor(vps.id, 'powerState', null);
      const failed = recordEvents('instance.action_failed');
      const res = await post(`/api/services/${vps.id}/instance/start`, owner.bearer).expect(202);
      const done = await settle(vps.id, res.body.id);
      expect(done).toMatchObject({
        status: 'failed',
        error: { code: 'hypervisor_error', message: 'Node is in maintenance.' },
        finishedAt: expect.any(String),
        step: null,
      });
      expect(await powerState(vps.id)).toBe('stopped');
      const event = await failed.about(res.body.id);
      expect(event.payload).toMatchObject({ actionId: res.body.id, error: { code: 'hypervisor_error' } });
      const list = await get(`/api/services/${vps.id}/instance/actions`, owner.bearer).expect(200);
      const events = await get(`/api/events?pageSize=100`, owner.bearer).expect(200);
      for (const seen of [done, list.body, events.body, event]) expect(JSON.stringify(seen)).not.toContain('/var/lib');
      const operator = await runCliIn(t.app, ['service:actions', '--id', vps.id]);
      expect(operator.code).toBe(0);
      expect(operator.lines[0]).toMatchObject({
        id: res.body.id,
        status: 'failed',
        error: { code: 'hypervisor_error', message: 'Node is in maintenance.', detail: said },
      });
    });

    it.each([
      ['start', 'running'],
      ['stop', 'stopped'],
      ['reboot', 'stopped'],
    ] as const)('answers 409 invalid_state to %s when the VPS is %s, and changes nothing', async (action, state) => {
      const vps = await createService(t, owner.id, { powerState: state });
      const res = await post(`/api/services/${vps.id}/instance/${action}`, owner.bearer);
      expect(res.status).toBe(409);
      expect(res.body.code).toBe('invalid_state');
      expect(await powerState(vps.id)).toBe(state);
      expect(await t.db.query('SELECT 1 FROM instance_actions WHERE service_id = $1', [vps.id])).toHaveLength(0);
    });

    it.each(['pending', 'suspended', 'cancelled', 'terminated'] as const)(
      'answers 409 invalid_state to every action on a %s VPS',
      async (status) => {
        for (const [action, state] of [
          ['start', 'stopped'],
          ['stop', 'running'],
          ['reboot', 'running'],
        ] as const) {
          const vps = await createService(t, owner.id, { status, powerState: state });
          const res = await post(`/api/services/${vps.id}/instance/${action}`, owner.bearer);
          expect({ action, status: res.status, code: res.body.code }).toEqual({ action, status: 409, code: 'invalid_state' });
        }
      },
    );

    it.each(['starting', 'stopping'] as const)('answers 409 action_in_progress while the VPS is %s', async (state) => {
      const vps = await createService(t, owner.id, { powerState: state });
      for (const action of ['start', 'stop', 'reboot']) {
        const res = await post(`/api/services/${vps.id}/instance/${action}`, owner.bearer);
        expect({ action, status: res.status, code: res.body.code }).toEqual({ action, status: 409, code: 'action_in_progress' });
      }
    });

    it('gives exactly one 202 for two concurrent starts (and for a start racing a start by API key)', async () => {
      for (let round = 0; round < 5; round++) {
        const vps = await createService(t, owner.id, { powerState: 'stopped' });
        const results = await Promise.all([
          post(`/api/services/${vps.id}/instance/start`, owner.bearer),
          post(`/api/services/${vps.id}/instance/start`, round % 2 ? owner.keyBearer : owner.bearer),
        ]);
        expect(results.map((r) => r.status).sort()).toEqual([202, 409]);
        expect(['action_in_progress', 'invalid_state']).toContain(results.find((r) => r.status === 409)!.body.code);
        const accepted = results.find((r) => r.status === 202)!;
        await settle(vps.id, accepted.body.id);
        const actions = await t.db.query('SELECT status FROM instance_actions WHERE service_id = $1', [vps.id]);
        expect(actions).toEqual([{ status: 'succeeded' }]);
      }
    });

    it('never lets a start and a stop both begin', async () => {
      const vps = await createService(t, owner.id, { powerState: 'running' });
      // The hypervisor keeps the first action in progress, so the others arrive while it runs
      // (with instant transitions it could otherwise finish before they take the lock).
      const status = stubFor(vps.id, 'taskStatus', { state: 'running' });
      const results = await Promise.all([
        post(`/api/services/${vps.id}/instance/stop`, owner.bearer),
        post(`/api/services/${vps.id}/instance/reboot`, owner.bearer),
        post(`/api/services/${vps.id}/instance/stop`, owner.keyBearer),
      ]);
      expect(results.filter((r) => r.status === 202)).toHaveLength(1);
      expect(results.filter((r) => r.status === 409)).toHaveLength(2);
      status.mockRestore();
      const accepted = results.find((r) => r.status === 202)!;
      expect((await settle(vps.id, accepted.body.id)).status).toBe('succeeded');
    });

    it('needs the write scope (403 for a read-only key)', async () => {
      const reader = await createAccount(t, { scopes: ['read'] });
      const vps = await createService(t, reader.id, { powerState: 'stopped' });
      const res = await post(`/api/services/${vps.id}/instance/start`, reader.keyBearer);
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('insufficient_scope');
      expect(await powerState(vps.id)).toBe('stopped');
    });
  });

  describe('GET /api/services/{id}/instance/actions', () => {
    it('lists the actions newest first, paginated, with an access token and an API key', async () => {
      const vps = await createService(t, owner.id);
      const ids: string[] = [];
      for (const action of ['stop', 'start', 'reboot', 'stop']) {
        const res = await post(`/api/services/${vps.id}/instance/${action}`, owner.bearer).expect(202);
        await settle(vps.id, res.body.id);
        ids.unshift(res.body.id);
      }
      for (const bearer of [owner.bearer, owner.keyBearer]) {
        const all = await get(`/api/services/${vps.id}/instance/actions`, bearer);
        expect(all.status).toBe(200);
        expect(all.body).toMatchObject({ page: 1, pageSize: 10, total: 4, totalPages: 1 });
        expect(all.body.data.map((a: Action) => a.id)).toEqual(ids);
        expect(all.body.data.map((a: Action) => a.type)).toEqual(['stop', 'reboot', 'start', 'stop']);
      }
      const second = await get(`/api/services/${vps.id}/instance/actions?page=2&pageSize=3`, owner.bearer);
      expect(second.body).toMatchObject({ page: 2, pageSize: 3, total: 4, totalPages: 2 });
      expect(second.body.data.map((a: Action) => a.id)).toEqual([ids[3]]);
    });

    it.each(['page=0', 'pageSize=101', 'page=-1', 'pageSize=10.5', 'page=1e2', 'page=abc', 'pageSize=', 'page=1&page=2'])(
      'answers 400 for ?%s',
      async (query) => {
        const vps = await createService(t, owner.id);
        const res = await get(`/api/services/${vps.id}/instance/actions?${query}`, owner.bearer);
        expect(res.status).toBe(400);
        expect(res.body.code).toBe('invalid_input');
      },
    );

    it('answers 404 for an action of another service, and 400 for a malformed action id', async () => {
      const mine = await createService(t, owner.id);
      const other = await createService(t, owner.id);
      const action = await post(`/api/services/${other.id}/instance/stop`, owner.bearer).expect(202);
      await get(`/api/services/${mine.id}/instance/actions/${action.body.id}`, owner.bearer).expect(404);
      await get(`/api/services/${mine.id}/instance/actions/${randomUUID()}`, owner.bearer).expect(404);
      const bad = await get(`/api/services/${mine.id}/instance/actions/nope`, owner.bearer);
      expect(bad.status).toBe(400);
      expect(bad.body.errors[0].field).toBe('actionId');
    });
  });

  describe('GET /api/services/{id}/instance/console', () => {
    const path = (id: string) => `/api/services/${id}/instance/console`;

    it('creates a single-use VNC session valid for 60 seconds (no-store), with an access token and an API key', async () => {
      const vps = await createService(t, owner.id);
      for (const bearer of [owner.bearer, owner.keyBearer]) {
        const before = Date.now();
        const res = await get(path(vps.id), bearer);
        const after = Date.now();
        expect(res.status).toBe(200);
        expect(res.headers['cache-control']).toBe('no-store');
        expect(res.body).toEqual({
          protocol: 'vnc',
          url: expect.stringMatching(/^ws:\/\/127\.0\.0\.1:3000\/console\?token=[A-Za-z0-9_-]{43}$/),
          password: expect.stringMatching(/^[A-Za-z0-9]{8}$/),
          expiresAt: expect.any(String),
        });
        // 60 s from the moment the session was issued, somewhere between the request and its answer.
        const expiresAt = new Date(res.body.expiresAt).getTime();
        expect(expiresAt).toBeGreaterThanOrEqual(before + 59_000);
        expect(expiresAt).toBeLessThanOrEqual(after + 60_000);
        const token = new URL(res.body.url).searchParams.get('token')!;
        const [row] = await t.db.query(`SELECT * FROM console_sessions WHERE service_id = $1 ORDER BY created_at DESC LIMIT 1`, [vps.id]);
        expect(JSON.stringify(row)).not.toContain(token);
        expect(JSON.stringify(row)).not.toContain(res.body.password);
        const consoles = t.app.get(ConsoleService);
        const redeemed = await consoles.redeem(token);
        // Bound to the credential that asked (the session of the access token, or the key), so revoking it ends the console.
        const credential =
          bearer === owner.bearer
            ? { kind: 'access_token', credentialId: JSON.parse(Buffer.from(owner.accessToken.split('.')[1], 'base64url').toString()).sid }
            : { kind: 'api_key', credentialId: owner.apiKeyId };
        expect(redeemed).toMatchObject({
          outcome: 'opened',
          serviceId: vps.id,
          credential: { accountId: owner.id, ...credential },
          validUntil: null,
          target: { protocol: 'vnc', password: res.body.password },
        });
        expect(await consoles.redeem(token)).toEqual({ outcome: 'refused' });
        if (redeemed.outcome === 'opened') await t.app.get(ConsoleConnections).forget(redeemed.sessionId);
      }
      expect(await t.app.get(ConsoleService).redeem('not-a-token')).toEqual({ outcome: 'refused' });
    });

    it('does not redeem an expired session', async () => {
      const vps = await createService(t, owner.id);
      const res = await get(path(vps.id), owner.bearer).expect(200);
      await t.db.query(`UPDATE console_sessions SET expires_at = now() - interval '1 second' WHERE service_id = $1`, [vps.id]);
      expect(await t.app.get(ConsoleService).redeem(new URL(res.body.url).searchParams.get('token')!)).toEqual({ outcome: 'refused' });
    });

    it.each(['stopped', 'starting', 'stopping'] as const)('answers 409 invalid_state when the VPS is %s', async (state) => {
      const vps = await createService(t, owner.id, { powerState: state });
      const res = await get(path(vps.id), owner.bearer);
      expect(res.status).toBe(409);
      expect(res.body.code).toBe('invalid_state');
    });

    it('answers 409 invalid_state for a running VPS whose service is not active', async () => {
      const vps = await createService(t, owner.id, { status: 'suspended', powerState: 'running' });
      const res = await get(path(vps.id), owner.bearer);
      expect(res.status).toBe(409);
      expect(res.body.code).toBe('invalid_state');
    });

    it('counts against the tighter console rate-limit bucket', () => {
      expect(Reflect.getMetadata(RATE_LIMIT_BUCKET, ConsoleController.prototype.console)).toBe('console');
      expect(Reflect.getMetadata(REQUIRED_SCOPE, ConsoleController.prototype.console)).toBe('write');
    });

    it('needs the write scope (403 for a read-only key)', async () => {
      const reader = await createAccount(t, { scopes: ['read'] });
      const vps = await createService(t, reader.id);
      const res = await get(path(vps.id), reader.keyBearer);
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('insufficient_scope');
      await get(`/api/services/${vps.id}/instance/actions`, reader.keyBearer).expect(200);
    });
  });

  describe('every instance route', () => {
    const routes: [string, 'get' | 'post', (id: string) => string][] = [
      ['start', 'post', (id) => `/api/services/${id}/instance/start`],
      ['stop', 'post', (id) => `/api/services/${id}/instance/stop`],
      ['reboot', 'post', (id) => `/api/services/${id}/instance/reboot`],
      ['actions', 'get', (id) => `/api/services/${id}/instance/actions`],
      ['action', 'get', (id) => `/api/services/${id}/instance/actions/${randomUUID()}`],
      ['console', 'get', (id) => `/api/services/${id}/instance/console`],
    ];
    const call = (method: 'get' | 'post', path: string, bearer?: string) => (method === 'get' ? get(path, bearer) : post(path, bearer));

    it.each(routes)('%s: 401 without a token', async (_name, method, path) => {
      const res = await call(method, path(randomUUID()));
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('unauthorized');
    });

    it.each(routes)('%s: 400 for a malformed service id', async (_name, method, path) => {
      for (const bad of ['123', 'not-a-uuid', `${randomUUID()}x`]) {
        const res = await call(method, path(bad), owner.bearer);
        expect(res.status).toBe(400);
        expect(res.body.code).toBe('invalid_input');
      }
    });

    it.each(routes)('%s: the same 404 for another account’s VPS as for an unknown id, and nothing changes', async (_name, method, path) => {
      const theirs = await createService(t, stranger.id);
      const other = await call(method, path(theirs.id), owner.bearer);
      const unknown = await call(method, path(randomUUID()), owner.bearer);
      expect([other.status, unknown.status]).toEqual([404, 404]);
      expect(other.body.detail).toBe(unknown.body.detail);
      expect(other.body.code).toBe('not_found');
      expect(await powerState(theirs.id)).toBe('running');
      expect(await t.db.query('SELECT 1 FROM instance_actions WHERE service_id = $1', [theirs.id])).toHaveLength(0);
      expect(await t.db.query('SELECT 1 FROM console_sessions WHERE service_id = $1', [theirs.id])).toHaveLength(0);
    });

    it.each(routes)('%s: 404 for an object storage service (it has no instance)', async (_name, method, path) => {
      const bucket = await createService(t, owner.id, { type: 'object_storage' });
      const res = await call(method, path(bucket.id), owner.bearer);
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('not_found');
    });
  });
});
