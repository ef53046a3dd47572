import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import WebSocket, { createWebSocketStream } from 'ws';
import { createAccount, TestAccount } from '../factories/accounts';
import { createService } from '../factories/services';
import { DEPLOY, nginxSite, NginxSite, nginxTestsEnabled } from '../support/nginx';
import { closeOf, viewScreen } from '../support/rfb-client';
import { startTestApp, TestApp } from '../support/test-app';

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
}

const CLIENT_REQUEST_ID = 'chosen-by-the-client-0001';
/** nginx's $request_id: 16 random bytes in hex. */
const NGINX_REQUEST_ID = /^[0-9a-f]{32}$/;

/** Every location block of the shared locations file that proxies to the API, by its name. */
function proxiedLocations(): Map<string, string> {
  const text = readFileSync(join(DEPLOY, 'nginx-locations.conf'), 'utf8');
  const blocks = new Map<string, string>();
  for (const [, name, body] of text.matchAll(/location\s+([^{]+?)\s*\{([^}]*)\}/g)) if (body.includes('proxy_pass')) blocks.set(name, body);
  return blocks;
}

/**
 * The nginx configurations shipped in deploy/, run by a real nginx in front
 * of the test app: TLS with HSTS, port 80 only redirecting, the client's X-Request-Id replaced by
 * nginx's own on every location (the event stream's included), the console WebSocket over wss://.
 */
(nginxTestsEnabled() ? describe : describe.skip)('nginx configuration (deploy/)', () => {
  let t: TestApp;
  let owner: TestAccount;
  let tls: NginxSite;
  beforeAll(async () => {
    t = await startTestApp();
    owner = await createAccount(t);
    tls = await nginxSite('nginx-tls.conf', (t.http.address() as AddressInfo).port);
    await tls.start();
  });
  afterAll(async () => {
    await tls?.stop();
    await t?.close();
  });

  /** One request through nginx, over TLS (verified against the site's certificate) or plain HTTP; the body is not read. */
  function through(scheme: 'https' | 'http', path: string, headers: Record<string, string> = {}): Promise<Answer> {
    const send = scheme === 'https' ? httpsRequest : httpRequest;
    const port = scheme === 'https' ? tls.https : tls.http;
    return new Promise((resolve, reject) => {
      const req = send({ host: '127.0.0.1', port, path, headers, ca: tls.ca }, (res) => {
        resolve({ status: res.statusCode!, headers: res.headers });
        res.destroy();
      });
      req.on('error', reject);
      req.end();
    });
  }

  it.each(['nginx.conf', 'nginx-tls.conf'] as const)('%s passes nginx -t', async (file) => {
    const site = await nginxSite(file, (t.http.address() as AddressInfo).port);
    try {
      const result = site.check();
      expect(result).toMatchObject({ status: 0, output: expect.stringContaining('test is successful') });
    } finally {
      await site.stop();
    }
  });

  it('serves HTTPS with HSTS on every answer, errors included, and port 80 only redirects to it', async () => {
    const ok = await through('https', '/health/live');
    expect(ok.status).toBe(200);
    const hsts = ok.headers['strict-transport-security'];
    expect(hsts).toMatch(/includeSubDomains/);
    expect(Number(/max-age=(\d+)/.exec(String(hsts))?.[1])).toBeGreaterThanOrEqual(31_536_000);
    expect((await through('https', '/api/services')).headers['strict-transport-security']).toBe(hsts);
    expect((await through('https', '/metrics')).status).toBe(403);

    const plain = await through('http', '/api/services?page=2');
    expect(plain.status).toBe(301);
    expect(plain.headers.location).toBe('https://127.0.0.1/api/services?page=2');
  });

  // The soak's 40-minute run: a PostgreSQL restart made both replicas answer 503 for a few seconds;
  // counted as failed attempts (proxy_next_upstream http_503), three each marked both down, and
  // nginx answered 502 "no live upstreams" to everything for its fail_timeout, the database back.
  it("passes on the 503 of replicas whose database restarts, and reaches them again at once, never 502 'no live upstreams'", async () => {
    let status = 503;
    const replicas = await Promise.all(
      [0, 1].map(
        () =>
          new Promise<Server>((resolve) => {
            const server = createServer((_req, res) => res.writeHead(status, { 'content-type': 'application/json' }).end('{}'));
            server.listen(0, '127.0.0.1', () => resolve(server));
          }),
      ),
    );
    const site = await nginxSite(
      'nginx.conf',
      replicas.map((server) => (server.address() as AddressInfo).port),
    );
    await site.start();
    const get = () =>
      new Promise<number>((resolve, reject) =>
        httpRequest({ host: '127.0.0.1', port: site.http, path: '/api/services' }, (res) => {
          resolve(res.statusCode!);
          res.resume();
        })
          .on('error', reject)
          .end(),
      );
    try {
      const during: number[] = [];
      for (let i = 0; i < 10; i++) during.push(await get());
      expect(during).toEqual(Array(10).fill(503));
      status = 200;
      expect(await get()).toBe(200);
    } finally {
      await site.stop();
      for (const server of replicas) server.close();
    }
  });

  it("replaces the client's X-Request-Id with nginx's own, on the event stream too", async () => {
    const plainCall = await through('https', '/api/services', { 'X-Request-Id': CLIENT_REQUEST_ID, Authorization: owner.bearer });
    expect(plainCall.status).toBe(200);
    expect(plainCall.headers['x-request-id']).toMatch(NGINX_REQUEST_ID);
    const stream = await through('https', '/api/notifications/stream', {
      'X-Request-Id': CLIENT_REQUEST_ID,
      Authorization: owner.bearer,
      Accept: 'text/event-stream',
    });
    expect(stream.status).toBe(200);
    expect(stream.headers['content-type']).toMatch(/^text\/event-stream/);
    expect(stream.headers['x-request-id']).toMatch(NGINX_REQUEST_ID);
    // Without nginx the API keeps a sane client id: the replacement is nginx's doing.
    expect((await request(t.http).get('/health/live').set('X-Request-Id', CLIENT_REQUEST_ID)).headers['x-request-id']).toBe(
      CLIENT_REQUEST_ID,
    );
  });

  it('sets X-Request-Id from $request_id and X-Forwarded-Proto in every location that proxies', () => {
    const locations = proxiedLocations();
    expect([...locations.keys()].sort()).toEqual(['/', '/api/notifications/stream', '= /console', '= /mcp']);
    for (const body of locations.values()) {
      expect(body).toMatch(/proxy_set_header X-Request-Id \$request_id;/);
      expect(body).toMatch(/proxy_set_header X-Forwarded-Proto \$scheme;/);
    }
  });

  it("opens the console over wss:// and shows the machine's screen", async () => {
    const vps = await createService(t, owner.id);
    const res = await request(t.http).get(`/api/services/${vps.id}/instance/console`).set('Authorization', owner.bearer).expect(200);
    const issued = new URL(res.body.url);
    const ws = new WebSocket(`wss://127.0.0.1:${tls.https}${issued.pathname}${issued.search}`, ['binary'], { ca: tls.ca });
    await new Promise((resolve, reject) => {
      ws.once('open', resolve);
      ws.once('error', reject);
    });
    const closed = closeOf(ws);
    expect(await viewScreen(createWebSocketStream(ws), res.body.password)).toMatchObject({ ok: true, screen: { name: `sim-${vps.id}` } });
    ws.close();
    await closed;
  });
});
