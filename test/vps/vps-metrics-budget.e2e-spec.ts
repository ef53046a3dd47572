import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAccount } from '../factories/accounts';
import { createService } from '../factories/services';
import { startTestApp, TestApp } from '../support/test-app';

const BUDGET = 6;

/** A stand-in for Prometheus's query API: it keeps every query it is asked and answers a CPU series at each step. */
async function fakePrometheus() {
  const asked: URLSearchParams[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const form = new URLSearchParams(body);
      asked.push(form);
      const [start, end, step] = ['start', 'end', 'step'].map((name) => Number(form.get(name)));
      const values: [number, string][] = [];
      for (let time = start; time <= end; time += step) values.push([time, '12.5']);
      res.setHeader('Content-Type', 'application/json');
      res.end(JSON.stringify({ status: 'success', data: { resultType: 'matrix', result: [{ metric: { series: 'cpu' }, values }] } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    asked,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** What a VPS's graphs cost the metrics system: a budget per account, and identical reads sharing one query. */
describe('VPS metrics: the budget per account and the short cache', () => {
  let prometheus: Awaited<ReturnType<typeof fakePrometheus>>;
  let t: TestApp;
  const path = (id: string, query = '') => `/api/services/${id}/instance/metrics${query}`;
  // A round hour a day ago: every range below starts a few seconds after it.
  const hour = Math.floor(Date.now() / 3_600_000) * 3600 - 86_400;
  const iso = (seconds: number) => new Date(seconds * 1000).toISOString();
  const hourFrom = (offset: number, step = 60) => `?type=cpu&start=${iso(hour + offset)}&end=${iso(hour + 3600 + offset)}&step=${step}`;

  beforeAll(async () => {
    prometheus = await fakePrometheus();
    t = await startTestApp({ METRICS_PROMETHEUS_URL: prometheus.url, RATE_LIMIT_METRICS_PER_MINUTE: String(BUDGET) });
  });
  afterAll(async () => {
    await t?.close();
    await prometheus?.close();
  });

  it('asks Prometheus once for reads made at once that fall on the same points, and again for other points', async () => {
    const owner = await createAccount(t);
    const vps = await createService(t, owner.id, { powerState: 'running' });
    const before = prometheus.asked.length;
    const answers = await Promise.all(
      [0, 0, 7, 59, 1].map((offset, i) => t.get(path(vps.id, hourFrom(offset)), i % 2 ? owner.keyBearer : owner.bearer).expect(200)),
    );
    expect(prometheus.asked.slice(before).map((form) => [form.get('start'), form.get('end'), form.get('step')])).toEqual([
      [String(hour), String(hour + 3600), '60'],
    ]);
    for (const res of answers) {
      expect(res.body).toEqual(answers[0].body);
      expect(res.body).toMatchObject({ start: iso(hour), end: iso(hour + 3600), step: 60 });
    }
    expect(answers[0].body.series.cpu).toHaveLength(61);

    await t.get(path(vps.id, hourFrom(60)), owner.bearer).expect(200);
    expect(prometheus.asked.length - before).toBe(2);
  });

  it('answers 429 rate_limited past RATE_LIMIT_METRICS_PER_MINUTE reads of an account, whichever credential reads', async () => {
    const owner = await createAccount(t);
    const other = await createAccount(t);
    const [vps, othersVps] = [await createService(t, owner.id), await createService(t, other.id)];
    const remaining: string[] = [];
    for (let i = 0; i < BUDGET; i++) {
      const res = await t.get(path(vps.id, hourFrom(0)), i % 2 ? owner.keyBearer : owner.bearer).expect(200);
      expect(res.headers['ratelimit-limit']).toBe(String(BUDGET));
      remaining.push(res.headers['ratelimit-remaining']);
    }
    expect(remaining).toEqual(['5', '4', '3', '2', '1', '0']);
    const asked = prometheus.asked.length;

    const refused = await t.get(path(vps.id, hourFrom(120)), owner.keyBearer).expect(429);
    expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(refused.body).toMatchObject({ status: 429, code: 'rate_limited' });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(refused.headers['ratelimit-limit']).toBe(String(BUDGET));
    expect(refused.headers['ratelimit-remaining']).toBe('0');
    expect(Number(refused.headers['ratelimit-reset'])).toBeGreaterThan(0);
    expect(Number(refused.headers['ratelimit-reset'])).toBeLessThanOrEqual(60);
    expect(prometheus.asked.length).toBe(asked);

    // The account's other reads and another account's graphs are not in this budget.
    await t.get(`/api/services/${vps.id}`, owner.keyBearer).expect(200);
    await t.get(path(othersVps.id, hourFrom(0)), other.keyBearer).expect(200);
  });
});
