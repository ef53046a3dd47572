import { randomUUID } from 'node:crypto';
import { createAccount, TestAccount } from '../factories/accounts';
import { createService } from '../factories/services';
import { runCliIn } from '../support/run-cli-in-app';
import { sharedTestApp, TestApp } from '../support/test-app';

/** A VPS's graphs on the embedded default: the simulator's series through the route. */
describe('VPS metrics (simulator)', () => {
  let t: TestApp;
  let owner: TestAccount;
  let stranger: TestAccount;
  let vpsId: string;
  const path = (id: string, query = '') => `/api/services/${id}/instance/metrics${query}`;

  beforeAll(async () => {
    t = await sharedTestApp();
    owner = await createAccount(t);
    stranger = await createAccount(t);
    vpsId = (await createService(t, owner.id, { powerState: 'running' })).id;
  });

  it('answers the last hour of CPU and disk series, and says network is unavailable in user networking', async () => {
    const res = await t.get(path(vpsId), owner.bearer).expect(200);
    expect(Object.keys(res.body).sort()).toEqual(['end', 'series', 'start', 'step', 'unavailable']);
    expect(Date.parse(res.body.end) - Date.parse(res.body.start)).toBe(3600_000);
    expect(res.body.step).toBe(10);
    expect(Object.keys(res.body.series).sort()).toEqual([
      'cpu',
      'disk.0.bandwidth.read',
      'disk.0.bandwidth.write',
      'disk.0.iops.read',
      'disk.0.iops.write',
    ]);
    expect(res.body.unavailable).toEqual(['network']);
    const cpu: [number, number][] = res.body.series.cpu;
    expect(cpu.length).toBeGreaterThan(300);
    expect(cpu.length).toBeLessThanOrEqual(361);
    for (const [time, value] of cpu) {
      expect(time * 1000).toBeGreaterThanOrEqual(Date.parse(res.body.start));
      expect(time * 1000).toBeLessThanOrEqual(Date.parse(res.body.end));
      expect(value).toBeGreaterThanOrEqual(0);
      expect(value).toBeLessThanOrEqual(100);
    }
  });

  it('gives only the types asked, over the range asked rounded down to multiples of the step asked', async () => {
    const end = Math.floor(Date.now() / 1000 - 86_400);
    const start = end - 6 * 3600;
    const iso = (seconds: number) => new Date(seconds * 1000).toISOString();
    const query = `?type=cpu&start=${iso(start)}&end=${iso(end)}&step=600`;
    const res = await t.get(path(vpsId, query), owner.keyBearer).expect(200);
    const onStep = (seconds: number) => seconds - (seconds % 600);
    expect(res.body).toMatchObject({ start: iso(onStep(start)), end: iso(onStep(end)), step: 600, unavailable: [] });
    expect(Object.keys(res.body.series)).toEqual(['cpu']);
    expect(res.body.series.cpu).toHaveLength(37);
    expect(res.body.series.cpu[1][0] - res.body.series.cpu[0][0]).toBe(600);
  });

  it('chooses a step that keeps 30 days at or under 1000 points', async () => {
    const end = new Date();
    const start = new Date(end.getTime() - 30 * 86_400_000);
    const res = await t.get(path(vpsId, `?type=disk&start=${start.toISOString()}&end=${end.toISOString()}`), owner.bearer).expect(200);
    expect(res.body.step).toBe(3600);
    expect(res.body.series['disk.0.iops.read'].length).toBeLessThanOrEqual(1001);
  });

  it.each([
    ['start=yesterday', 'start'],
    ['start=2026-11-26T09:00:00', 'start'],
    ['start=1764147600', 'start'],
    ['start=2026-02-30T00:00:00Z', 'start'],
    ['end=%2B275760-09-13T00:00:00Z', 'end'],
    ['start=2026-11-26T10:00:00Z&end=2026-11-26T09:00:00Z', 'start'],
    ['start=2020-01-01T00:00:00Z&end=2020-03-01T00:00:00Z', 'start'],
    ['start=2026-11-26T10:00:00Z&start=2026-11-26T09:00:00Z', 'start'],
    ['step=0', 'step'],
    ['step=-10', 'step'],
    ['step=1.5', 'step'],
    ['step=1e3', 'step'],
    ['step=0x10', 'step'],
    ['step=NaN', 'step'],
    ['step=99999', 'step'],
    ['step=1', 'step'],
    ['type=', 'type'],
    ['type=memory', 'type'],
    ['type=CPU', 'type'],
    ['type=cpu,,disk', 'type'],
    ['type=cpu%22%7D%20or%20vector(1)', 'type'],
    ['type=cpu&type=disk', 'type'],
    ['domain=svc-x', 'domain'],
  ])('answers 400 invalid_input for %s, naming %s', async (query, field) => {
    const res = await t.get(path(vpsId, `?${query}`), owner.bearer).expect(400);
    expect(res.body.code).toBe('invalid_input');
    expect(res.body.errors.map((e: { field: string }) => e.field)).toContain(field);
  });

  it("answers 404 for another account's VPS, an unknown id and an object storage service", async () => {
    const storage = await createService(t, owner.id, { type: 'object_storage' });
    for (const [id, bearer] of [
      [vpsId, stranger.bearer],
      [vpsId, stranger.keyBearer],
      [randomUUID(), owner.bearer],
      [storage.id, owner.bearer],
    ]) {
      const res = await t.get(path(id), bearer).expect(404);
      expect(res.body.code).toBe('not_found');
      expect(JSON.stringify(res.body)).not.toContain('"series"');
    }
    await t.get(path('svc-1'), owner.bearer).expect(400);
  });

  it('answers 404 for a terminated VPS, as its alerts do, with the same body', async () => {
    const vps = await createService(t, owner.id, { powerState: 'running' });
    await t.get(path(vps.id), owner.bearer).expect(200);
    expect((await runCliIn(t.app, ['service:set-status', '--id', vps.id, '--status', 'terminated'])).code).toBe(0);
    const graphs = await t.get(path(vps.id), owner.bearer).expect(404);
    const alerts = await t.get(`/api/services/${vps.id}/instance/alerts`, owner.bearer).expect(404);
    expect(graphs.body).toMatchObject({ code: 'not_found', detail: 'Service not found.' });
    expect({ ...graphs.body, requestId: undefined }).toEqual({ ...alerts.body, requestId: undefined });
  });

  it('needs a token and the read scope', async () => {
    await t.get(path(vpsId)).expect(401);
    const readOnly = await createAccount(t, { scopes: ['read'] });
    const readOnlyVps = await createService(t, readOnly.id);
    await t.get(path(readOnlyVps.id), readOnly.keyBearer).expect(200);
    const writeOnly = await createAccount(t, { scopes: ['write'] });
    const writeOnlyVps = await createService(t, writeOnly.id);
    const res = await t.get(path(writeOnlyVps.id), writeOnly.keyBearer).expect(403);
    expect(res.body.code).toBe('insufficient_scope');
  });
});
