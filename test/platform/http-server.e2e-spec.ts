import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { startTestApp, TestApp } from '../support/test-app';

const deployed = (file: string) => readFileSync(join(__dirname, '../../deploy', file), 'utf8');
const locations = deployed('nginx-locations.conf');

/** Seconds of nginx's upstream `keepalive_timeout` (nginx's default when absent: 60 s), the longest of both configurations. */
function upstreamKeepAliveSeconds(): number {
  return Math.max(
    ...['nginx.conf', 'nginx-tls.conf'].map((file) => {
      const upstream = /upstream api \{([^}]*)\}/.exec(deployed(file))?.[1] ?? '';
      const value = /keepalive_timeout\s+(\d+)(s?);/.exec(upstream);
      return value ? Number(value[1]) : 60;
    }),
  );
}

describe('HTTP server behind the load balancer (issue 17)', () => {
  let t: TestApp;
  beforeAll(async () => (t = await startTestApp()));
  afterAll(() => t.close());

  it('keeps idle connections longer than nginx keeps its upstream ones, and headers longer still (finding 12)', () => {
    expect(t.http.keepAliveTimeout).toBe(t.config.httpKeepAliveTimeoutMs);
    expect(t.http.headersTimeout).toBe(t.config.httpHeadersTimeoutMs);
    expect(t.http.keepAliveTimeout).toBeGreaterThan(upstreamKeepAliveSeconds() * 1000);
    expect(t.http.headersTimeout).toBeGreaterThan(t.http.keepAliveTimeout);
  });

  it('denies /metrics at the load balancer in any letter case (finding 4)', () => {
    const rule = /location\s+~\*\s+(\S+)\s*\{\s*deny all;\s*\}/.exec(locations);
    expect(rule).not.toBeNull();
    const pattern = new RegExp(rule![1], 'i');
    for (const path of ['/metrics', '/METRICS', '/Metrics/x']) expect(pattern.test(path)).toBe(true);
    expect(pattern.test('/api/services')).toBe(false);
  });

  it('trusts no proxy by default: X-Forwarded-For does not choose the rate-limit bucket (finding 10)', async () => {
    const limited = await startTestApp({ RATE_LIMIT_LOGIN_PER_MINUTE: '1' });
    try {
      const login = (ip: string) =>
        request(limited.http).post('/api/auth/refresh').set('X-Forwarded-For', ip).send({ refreshToken: 'hrt_not-a-token' });
      // The per-IP login bucket is 5x the per-email one: 5 attempts from one client, whatever header it sends.
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) statuses.push((await login(`10.0.0.${i + 1}`)).status);
      expect(statuses).toEqual([401, 401, 401, 401, 401, 429]);
    } finally {
      await limited.close();
    }
  });

  it('takes the client address from X-Forwarded-For when TRUST_PROXY names the proxy', async () => {
    const proxied = await startTestApp({ RATE_LIMIT_LOGIN_PER_MINUTE: '1', TRUST_PROXY: '127.0.0.1' });
    try {
      for (let i = 0; i < 6; i++) {
        const res = await request(proxied.http)
          .post('/api/auth/refresh')
          .set('X-Forwarded-For', `203.0.113.${i + 1}`)
          .send({ refreshToken: 'hrt_x' });
        expect(res.status).toBe(401);
      }
    } finally {
      await proxied.close();
    }
  });
});
