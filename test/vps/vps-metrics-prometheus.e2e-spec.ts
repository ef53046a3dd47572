import request from 'supertest';
import { AlertsEvaluationJob } from '@app/metrics';
import { createAccount, TestAccount } from '../factories/accounts';
import { notificationsOf } from '../factories/notifications';
import { createService } from '../factories/services';
import { BusyGuest, buildBusyGuest } from '../support/busy-guest';
import { libvirtTestsEnabled } from '../support/libvirt';
import { PrometheusStack, prometheusTestsEnabled, startPrometheus } from '../support/prometheus';
import { startTestApp, TestApp } from '../support/test-app';
import { waitFor, waitForOrFail } from '../support/wait-for';

/**
 * A VPS's graphs from the real parts: Debian's prometheus-libvirt-exporter on the local
 * qemu:///system, a Prometheus scraping it every 2 s, and one small guest named as the VPS's domain
 * (`svc-<id>`) keeping its CPU and disk busy. The app keeps the simulator for compute: the route
 * reads only the database and Prometheus. PostgreSQL pass only, as the other libvirt suites.
 */
const enabled = libvirtTestsEnabled() && prometheusTestsEnabled();
const TIMEOUT_MS = 3000;

type Points = [number, number][];

(enabled ? describe : describe.skip)('VPS metrics from Prometheus and the libvirt exporter', () => {
  let stack: PrometheusStack;
  let t: TestApp;
  let owner: TestAccount;
  let stranger: TestAccount;
  let guest: BusyGuest;
  let vpsId: string;
  const path = (id: string, query = '') => `/api/services/${id}/instance/metrics${query}`;

  beforeAll(async () => {
    stack = await startPrometheus();
    t = await startTestApp({ METRICS_PROMETHEUS_URL: stack.url, METRICS_TIMEOUT_MS: String(TIMEOUT_MS) });
    owner = await createAccount(t);
    stranger = await createAccount(t);
    vpsId = (await createService(t, owner.id, { powerState: 'running' })).id;
    guest = buildBusyGuest();
    await guest.start(`svc-${vpsId}`);
  }, 120_000);

  afterAll(async () => {
    await guest?.remove(`svc-${vpsId}`);
    await stack?.stop();
    await t?.close();
  });

  it('answers non-zero CPU and disk series of the running guest, and no network (no NIC libvirt can count)', async () => {
    const positive = (points: Points | undefined) => (points ?? []).some(([, value]) => value > 0);
    const body = await waitForOrFail(
      async () => {
        await new Promise((resolve) => setTimeout(resolve, 1000));
        return (await t.get(path(vpsId, '?step=10'), owner.bearer).expect(200)).body;
      },
      (b) => positive(b.series.cpu) && positive(b.series['disk.0.iops.read']) && positive(b.series['disk.0.bandwidth.write']),
      180_000,
      (b) => `no non-zero CPU and disk series within 3 minutes: ${JSON.stringify(b).slice(0, 2000)}`,
    );
    expect(Object.keys(body.series).sort()).toEqual([
      'cpu',
      'disk.0.bandwidth.read',
      'disk.0.bandwidth.write',
      'disk.0.iops.read',
      'disk.0.iops.write',
    ]);
    expect(body.unavailable).toEqual(['network']);
    const [start, end] = [Date.parse(body.start) / 1000, Date.parse(body.end) / 1000];
    for (const points of Object.values(body.series) as Points[]) {
      for (const [time, value] of points) {
        expect(time).toBeGreaterThanOrEqual(start);
        expect(time).toBeLessThanOrEqual(end);
        expect((time - start) % 10).toBe(0);
        expect(value).toBeGreaterThanOrEqual(0);
      }
    }
    expect(body.series.cpu.every(([, value]: [number, number]) => value <= 100)).toBe(true);
  });

  it("reads only the VPS's own domain: another VPS of the owner without a machine has no series", async () => {
    const other = await createService(t, owner.id, { powerState: 'running' });
    const res = await t.get(path(other.id), owner.bearer).expect(200);
    expect(res.body.series).toEqual({});
    expect(res.body.unavailable).toEqual(['cpu', 'disk', 'network']);
  });

  it("answers 404 for another account's VPS", async () => {
    expect((await t.get(path(vpsId), stranger.bearer).expect(404)).body.code).toBe('not_found');
  });

  it('fires a low CPU alert once for the busy guest, and resolves it once when the VPS is stopped', async () => {
    const job = t.app.get(AlertsEvaluationJob);
    const alerts = `/api/services/${vpsId}/instance/alerts`;
    const alert = (
      await request(t.http).post(alerts).set('Authorization', owner.bearer).send({ type: 'cpu', above: 5, forMinutes: 1 }).expect(201)
    ).body;
    const crossings = async () =>
      ((await t.get(`/api/events?entityId=${vpsId}`, owner.bearer).expect(200)).body.data as { action: string }[])
        .map((e) => e.action)
        .filter((a) => a === 'instance.alert_fired' || a === 'instance.alert_resolved');
    const state = async () =>
      (await t.get(alerts, owner.bearer).expect(200)).body.data.find((a: { id: string }) => a.id === alert.id).state;
    await waitForOrFail(
      async () => {
        await new Promise((resolve) => setTimeout(resolve, 2000));
        await job.run();
        return state();
      },
      (s) => s === 'firing',
      180_000,
      (s) => `the alert is still ${s} after 3 minutes of a busy guest`,
    );
    for (let i = 0; i < 3; i++) await job.run();
    expect(await crossings()).toEqual(['instance.alert_fired']);

    const stop = (await request(t.http).post(`/api/services/${vpsId}/instance/stop`).set('Authorization', owner.bearer).expect(202)).body;
    await waitFor(
      () =>
        t.db.query(
          `WITH done AS (UPDATE compute_simulator_tasks SET completes_at = now() WHERE id = $1 RETURNING id) SELECT id FROM done`,
          [stop.id],
        ),
      (rows: unknown[]) => rows.length === 1,
      20_000,
    );
    await waitFor(
      async () => (await t.get(`/api/services/${vpsId}/instance/actions/${stop.id}`, owner.bearer).expect(200)).body.status,
      (status) => status !== 'running',
      20_000,
    );
    for (let i = 0; i < 3; i++) await job.run();
    expect(await state()).toBe('ok');
    expect(await crossings()).toEqual(['instance.alert_resolved', 'instance.alert_fired']);
    const notices = await waitFor(
      async () => (await notificationsOf(t, owner)).filter((n) => n.type.startsWith('instance_alert_')),
      (list) => list.length >= 2,
      15_000,
    );
    expect(notices.map((n) => n.type)).toEqual(['instance_alert_resolved', 'instance_alert_fired']);
  });

  it('answers 503 metrics_unavailable when Prometheus does not answer within the timeout, and again once it is stopped', async () => {
    // A read no earlier test made: an identical one would be answered from the cache (METRICS_CACHE_SECONDS).
    const unasked = path(vpsId, '?type=disk');
    stack.pause();
    try {
      const res = await t
        .get(unasked, owner.bearer)
        .timeout(TIMEOUT_MS + 20_000)
        .expect(503);
      expect(res.body).toMatchObject({ code: 'metrics_unavailable', status: 503 });
      expect(res.headers['retry-after']).toBe('5');
    } finally {
      stack.resume();
    }
    await stack.stopPrometheus();
    const res = await t.get(unasked, owner.bearer).expect(503);
    expect(res.body.code).toBe('metrics_unavailable');
  });
});
