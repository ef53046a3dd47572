import request from 'supertest';
import { OperatorMetricsEndpoint } from '../../apps/api/src/operator-metrics/operator-metrics-endpoint';
import { createAccount, TestAccount } from '../factories/accounts';
import { startTestApp, TestApp } from '../support/test-app';

describe('Platform: errors, headers, health', () => {
  let t: TestApp;
  let account: TestAccount;
  beforeAll(async () => {
    t = await startTestApp({ METRICS_PORT: '0' });
    account = await createAccount(t);
  });
  afterAll(() => t.close());

  it('answers unknown routes with a 404 problem', async () => {
    const res = await request(t.http).get('/api/nope').set('Authorization', account.bearer);
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body).toMatchObject({ status: 404, code: 'not_found', type: '/problems/not-found', title: 'Not Found' });
  });

  it('sends X-Request-Id, no X-Powered-By, nosniff on every response', async () => {
    for (const res of [await request(t.http).get('/health/live'), await request(t.http).get('/api/auth/me')]) {
      expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
      expect(res.headers['x-powered-by']).toBeUndefined();
      expect(res.headers['x-content-type-options']).toBe('nosniff');
    }
  });

  it('answers malformed JSON with 400 invalid_input', async () => {
    const res = await request(t.http).post('/api/auth/login').set('Content-Type', 'application/json').send('{"email": ');
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('invalid_input');
  });

  it('answers a body over 1 MiB with 413 and a non-JSON body with 415', async () => {
    const big = await request(t.http)
      .post('/api/auth/api-keys')
      .set('Authorization', account.bearer)
      .set('Content-Type', 'application/json')
      .send(JSON.stringify({ name: 'x'.repeat(1024 * 1024 + 10) }));
    expect(big.status).toBe(413);
    expect(big.body.code).toBe('payload_too_large');
    const form = await request(t.http).post('/api/auth/login').type('form').send('email=a@b.io&password=x');
    expect(form.status).toBe(415);
    expect(form.body.code).toBe('unsupported_media_type');
  });

  it.each([
    ['a JSON array body', '[]'],
    ['a JSON string body', '"hello"'],
    ['a null body', 'null'],
    ['deeply nested JSON', '{"a":'.repeat(5000) + '1' + '}'.repeat(5000)],
    ['a NUL byte in a string', '{"email":"a\\u0000@b.io","password":"x"}'],
    ['a lone surrogate', '{"email":"\\ud800@b.io","password":"x"}'],
  ])('answers %s with 400 invalid_input, never a 500', async (_name, body) => {
    const res = await request(t.http).post('/api/auth/login').set('Content-Type', 'application/json').send(body);
    expect({ status: res.status, code: res.body.code }).toEqual({ status: 400, code: 'invalid_input' });
  });

  it('reports liveness and readiness', async () => {
    expect((await request(t.http).get('/health/live')).body).toMatchObject({ status: 'ok' });
    expect((await request(t.http).get('/health/ready')).body).toMatchObject({ status: 'ok', info: { database: { status: 'up' } } });
  });

  it('exposes Prometheus metrics that include the request just made', async () => {
    await request(t.http).get('/api/auth/me').set('Authorization', account.keyBearer).expect(200);
    const res = await request(`http://127.0.0.1:${t.app.get(OperatorMetricsEndpoint).port}`)
      .get('/metrics')
      .expect(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    expect(res.text).toMatch(/http_requests_total\{method="GET",route="\/api\/auth\/me",status="200"\} [1-9]/);
    expect(res.text).toContain('http_request_duration_seconds_bucket{le="0.005",method="GET",route="/api/auth/me",status="200"}');
    expect(res.text).toMatch(/db_pool_connections\{state="total"\} \d/);
    expect(res.text).toContain('process_resident_memory_bytes');
  });

  it('serves metrics only on METRICS_PORT, in any letter case nowhere on the API port (issue 17, finding 4)', async () => {
    for (const path of ['/metrics', '/METRICS', '/Metrics/']) {
      expect({ path, status: (await request(t.http).get(path)).status }).toEqual({ path, status: 404 });
    }
  });
});
