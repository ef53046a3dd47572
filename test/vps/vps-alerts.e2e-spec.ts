import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { AlertsEvaluationJob } from '@app/metrics';
import { createAccount, TestAccount } from '../factories/accounts';
import { notificationsOf } from '../factories/notifications';
import { createService } from '../factories/services';
import { runCliIn } from '../support/run-cli-in-app';
import { startAppWithAccounts, startTestApp, TestAppWithAccounts } from '../support/test-app';
import { waitFor } from '../support/wait-for';
import { WebhookReceiver } from '../support/webhook-receiver';

/** Metric alerts on the simulator's series: the routes, and the job's evaluation run directly. */
describe('VPS metric alerts (simulator)', () => {
  let t: TestAppWithAccounts;
  let owner: TestAccount;
  let stranger: TestAccount;
  let receiver: WebhookReceiver;
  const path = (id: string, rest = '') => `/api/services/${id}/instance/alerts${rest}`;
  const api = (bearer: string) => ({
    post: (url: string, body?: object) => request(t.http).post(url).set('Authorization', bearer).send(body),
    get: (url: string) => request(t.http).get(url).set('Authorization', bearer),
    delete: (url: string) => request(t.http).delete(url).set('Authorization', bearer),
  });
  const evaluate = () => t.app.get(AlertsEvaluationJob).run();
  const cpuAlert = { type: 'cpu', above: 80, forMinutes: 5 };

  beforeAll(async () => {
    receiver = await new WebhookReceiver().start();
    ({ owner, stranger } = t = await startAppWithAccounts({ WEBHOOKS_ALLOW_HTTP: 'true', WEBHOOKS_ALLOW_PRIVATE: 'true' }));
  });
  afterAll(() => receiver.stop());

  it('creates, lists page by page and deletes alerts', async () => {
    const vps = await createService(t, owner.id, { powerState: 'running' });
    const created = await api(owner.keyBearer).post(path(vps.id), cpuAlert).expect(201);
    expect(created.body).toEqual({
      id: expect.any(String),
      serviceId: vps.id,
      ...cpuAlert,
      state: 'ok',
      stateChangedAt: created.body.createdAt,
      createdAt: expect.any(String),
    });
    const second = await api(owner.bearer).post(path(vps.id), { type: 'network.in', above: 1.5e6, forMinutes: 60 }).expect(201);
    const page = await api(owner.keyBearer).get(path(vps.id, '?pageSize=1')).expect(200);
    expect(page.body).toMatchObject({ data: [{ id: second.body.id, above: 1.5e6 }], page: 1, pageSize: 1, total: 2, totalPages: 2 });
    await api(owner.keyBearer)
      .delete(path(vps.id, `/${created.body.id}`))
      .expect(204);
    await api(owner.keyBearer)
      .delete(path(vps.id, `/${created.body.id}`))
      .expect(404);
    expect((await api(owner.bearer).get(path(vps.id)).expect(200)).body.data.map((a: { id: string }) => a.id)).toEqual([second.body.id]);
    const events = await api(owner.bearer).get(`/api/events?entityId=${vps.id}`).expect(200);
    expect(events.body.data.map((e: { action: string }) => e.action)).toEqual([
      'instance.alert_delete',
      'instance.alert_create',
      'instance.alert_create',
    ]);
  });

  it("answers 404 for another account's VPS or alert, an unknown id and a service that is not a VPS", async () => {
    const vps = await createService(t, owner.id, { powerState: 'running' });
    const theirs = await createService(t, stranger.id, { powerState: 'running' });
    const storage = await createService(t, owner.id, { type: 'object_storage' });
    const alert = (await api(owner.bearer).post(path(vps.id), cpuAlert).expect(201)).body;
    for (const id of [vps.id, randomUUID()]) {
      await api(stranger.bearer).get(path(id)).expect(404);
      await api(stranger.bearer).post(path(id), cpuAlert).expect(404);
      await api(stranger.bearer)
        .delete(path(id, `/${alert.id}`))
        .expect(404);
    }
    await api(stranger.bearer)
      .delete(path(theirs.id, `/${alert.id}`))
      .expect(404);
    await api(owner.bearer).get(path(storage.id)).expect(404);
    await api(owner.bearer).post(path(storage.id), cpuAlert).expect(404);
    expect((await api(owner.bearer).get(path(vps.id)).expect(200)).body.total).toBe(1);
  });

  it('needs a token, and the write scope for changes', async () => {
    const vps = await createService(t, owner.id, { powerState: 'running' });
    await request(t.http).get(path(vps.id)).expect(401);
    const reader = await createAccount(t, { scopes: ['read'] });
    const readersVps = await createService(t, reader.id, { powerState: 'running' });
    await api(reader.keyBearer).get(path(readersVps.id)).expect(200);
    const refused = await api(reader.keyBearer).post(path(readersVps.id), cpuAlert).expect(403);
    expect(refused.body.code).toBe('insufficient_scope');
  });

  it.each([
    [{ ...cpuAlert, type: 'memory' }, 'type'],
    [{ above: 80, forMinutes: 5 }, 'type'],
    [{ ...cpuAlert, above: -1 }, 'above'],
    [{ ...cpuAlert, above: 100.5 }, 'above'],
    [{ ...cpuAlert, above: '80' }, 'above'],
    [{ ...cpuAlert, above: 2e12, type: 'disk.write' }, 'above'],
    [{ ...cpuAlert, forMinutes: 0 }, 'forMinutes'],
    [{ ...cpuAlert, forMinutes: 61 }, 'forMinutes'],
    [{ ...cpuAlert, forMinutes: 1.5 }, 'forMinutes'],
    [{ ...cpuAlert, enabled: true }, 'enabled'],
  ])('refuses %j: 400 naming %s', async (body, field) => {
    const vps = await createService(t, owner.id, { powerState: 'running' });
    const res = await api(owner.bearer).post(path(vps.id), body).expect(400);
    expect(res.body.code).toBe('invalid_input');
    expect(res.body.errors.map((e: { field: string }) => e.field)).toContain(field);
  });

  it('keeps at most 10 alerts per VPS: 409 quota_exceeded past it', async () => {
    const vps = await createService(t, owner.id, { powerState: 'running' });
    for (let i = 0; i < 10; i++)
      await api(owner.bearer)
        .post(path(vps.id), { ...cpuAlert, above: i })
        .expect(201);
    const refused = await api(owner.bearer).post(path(vps.id), cpuAlert).expect(409);
    expect(refused.body.code).toBe('quota_exceeded');
    const other = await createService(t, owner.id, { powerState: 'running' });
    await api(owner.bearer).post(path(other.id), cpuAlert).expect(201);
  });

  describe('evaluation', () => {
    let account: TestAccount;
    let endpointId: string;
    const alertNotifications = async () => (await notificationsOf(t, account)).filter((n) => n.type.startsWith('instance_alert_'));
    const deliveries = async () =>
      (await api(account.bearer).get(`/api/webhooks/${endpointId}/deliveries?pageSize=100`).expect(200)).body.data as {
        eventType?: string;
      }[];
    const actionsOn = async (serviceId: string) =>
      ((await api(account.bearer).get(`/api/events?entityId=${serviceId}`).expect(200)).body.data as { action: string }[])
        .map((e) => e.action)
        .filter((a) => a.startsWith('instance.alert_'));
    const receivedFor = (serviceId: string) => receiver.received.filter((r) => r.json.data.entity?.id === serviceId);
    const stop = async (serviceId: string) => {
      const action = (await api(account.bearer).post(`/api/services/${serviceId}/instance/stop`).expect(202)).body;
      await waitFor(
        () =>
          t.db.query(
            `WITH done AS (UPDATE compute_simulator_tasks SET completes_at = now() WHERE id = $1 RETURNING id) SELECT id FROM done`,
            [action.id],
          ),
        (rows: unknown[]) => rows.length === 1,
        20_000,
      );
      await waitFor(
        async () => (await api(account.bearer).get(`/api/services/${serviceId}/instance/actions/${action.id}`).expect(200)).body.status,
        (status) => status !== 'running',
        20_000,
      );
    };

    beforeAll(async () => {
      account = await createAccount(t);
      const endpoint = await api(account.bearer)
        .post('/api/webhooks', { url: receiver.url, events: ['instance.alert_fired', 'instance.alert_resolved'] })
        .expect(201);
      endpointId = endpoint.body.id;
    });

    it('fires once for a running VPS above the threshold, and resolves once when it is stopped', async () => {
      const vps = await createService(t, account.id, { powerState: 'running' });
      const firing = (await api(account.bearer).post(path(vps.id), { type: 'cpu', above: 0, forMinutes: 1 }).expect(201)).body;
      const quiet = (await api(account.bearer).post(path(vps.id), { type: 'cpu', above: 100, forMinutes: 1 }).expect(201)).body;
      for (let i = 0; i < 3; i++) await evaluate();

      const alerts = (await api(account.bearer).get(path(vps.id)).expect(200)).body.data;
      expect(alerts.find((a: { id: string }) => a.id === firing.id)).toMatchObject({ state: 'firing' });
      expect(alerts.find((a: { id: string }) => a.id === quiet.id)).toMatchObject({ state: 'ok', stateChangedAt: quiet.createdAt });
      expect(await deliveries()).toHaveLength(1);
      // Notifications are made after the commit: wait for the one, then check it is the only one.
      const fired = await waitFor(alertNotifications, (list) => list.length >= 1, 15_000);
      expect(fired).toHaveLength(1);
      expect(fired[0]).toMatchObject({ type: 'instance_alert_fired', severity: 'warning', entity: { type: 'service', id: vps.id } });
      const [hook] = await waitFor(
        async () => receivedFor(vps.id),
        (list) => list.length >= 1,
        15_000,
      );
      expect(hook.json).toMatchObject({
        type: 'instance.alert_fired',
        data: { entity: { type: 'service', id: vps.id }, details: { alertId: firing.id, type: 'cpu', above: 0, forMinutes: 1 } },
      });
      expect(hook.json.data.details.value).toBeGreaterThan(0);

      await stop(vps.id);
      for (let i = 0; i < 3; i++) await evaluate();
      const after = (await api(account.bearer).get(path(vps.id)).expect(200)).body.data;
      expect(after.find((a: { id: string }) => a.id === firing.id)).toMatchObject({ state: 'ok' });
      expect(await deliveries()).toHaveLength(2);
      const both = await waitFor(alertNotifications, (list) => list.length >= 2, 15_000);
      expect(both.map((n) => n.type)).toEqual(['instance_alert_resolved', 'instance_alert_fired']);
      const hooks = await waitFor(
        async () => receivedFor(vps.id),
        (list) => list.length >= 2,
        15_000,
      );
      expect(hooks.map((h) => h.json.type)).toEqual(['instance.alert_fired', 'instance.alert_resolved']);
    });

    it('stops watching a deleted alert and a terminated VPS', async () => {
      const vps = await createService(t, account.id, { powerState: 'running' });
      const deleted = (await api(account.bearer).post(path(vps.id), { type: 'cpu', above: 0, forMinutes: 1 }).expect(201)).body;
      await api(account.bearer)
        .delete(path(vps.id, `/${deleted.id}`))
        .expect(204);
      await evaluate();
      expect(await actionsOn(vps.id)).toEqual(['instance.alert_delete', 'instance.alert_create']);

      await api(account.bearer).post(path(vps.id), { type: 'cpu', above: 0, forMinutes: 1 }).expect(201);
      expect((await runCliIn(t.app, ['service:set-status', '--id', vps.id, '--status', 'terminated'])).code).toBe(0);
      await evaluate();
      expect(await t.db.query('SELECT id FROM metric_alerts WHERE service_id = $1', [vps.id])).toEqual([]);
      expect(await actionsOn(vps.id)).not.toContain('instance.alert_fired');
      await api(account.bearer).get(path(vps.id)).expect(404);
    });
  });
});

describe('VPS metric alerts: a metrics system that does not answer', () => {
  it('skips the check and leaves the state as it was', async () => {
    // Nothing listens on port 9 of loopback: every query is refused at once.
    const t = await startTestApp({ METRICS_PROMETHEUS_URL: 'http://127.0.0.1:9' });
    try {
      const account = await createAccount(t);
      const vps = await createService(t, account.id, { powerState: 'running' });
      const alert = await request(t.http)
        .post(`/api/services/${vps.id}/instance/alerts`)
        .set('Authorization', account.bearer)
        .send({ type: 'cpu', above: 0, forMinutes: 1 })
        .expect(201);
      const outcome = await t.app.get(AlertsEvaluationJob).run();
      expect(outcome).toMatchObject({ fired: 0, resolved: 0 });
      expect(outcome.skipped).toBeGreaterThanOrEqual(1);
      const [row] = await t.db.query('SELECT state, state_changed_at FROM metric_alerts WHERE id = $1', [alert.body.id]);
      expect(row.state).toBe('ok');
      expect(new Date(row.state_changed_at).toISOString()).toBe(alert.body.stateChangedAt);
    } finally {
      await t.close();
    }
  });
});
