import type { AddressInfo } from 'node:net';
import { createAccount, TestAccount } from '../factories/accounts';
import { MCP_PROTOCOL_VERSION, openRawMcpSession } from '../support/mcp-session';
import { nginxSite, NginxSite, nginxTestsEnabled } from '../support/nginx';
import { startTestApp, TestApp } from '../support/test-app';
import { RUN_DATABASE_URL } from '../support/test-env';

/**
 * deploy/nginx.conf in front of two replicas on one PostgreSQL (on PGlite each app has a database of
 * its own, so the second would not know the first's accounts). An MCP session lives in the replica
 * that opened it: round-robin sent every other request of a session to the replica that did not
 * have it (404 "Session not found"), as the soak found (docs/soak.md).
 */
(nginxTestsEnabled() && RUN_DATABASE_URL ? describe : describe.skip)('nginx in front of two replicas (deploy/nginx.conf)', () => {
  let replicas: TestApp[] = [];
  let site: NginxSite;
  let owner: TestAccount;

  beforeAll(async () => {
    replicas = [await startTestApp(), await startTestApp()];
    owner = await createAccount(replicas[0]);
    site = await nginxSite(
      'nginx.conf',
      replicas.map((t) => (t.http.address() as AddressInfo).port),
    );
    await site.start();
  });

  afterAll(async () => {
    await site?.stop();
    for (const t of replicas) await t.close();
  });

  it('sends every request of an MCP session to the replica that holds it', async () => {
    const base = `http://127.0.0.1:${site.http}`;
    const session = await openRawMcpSession(base, owner.keyBearer);
    const statuses: number[] = [];
    for (let id = 2; id < 10; id++) {
      const res = await fetch(`${base}/mcp`, {
        method: 'POST',
        headers: session.headers,
        body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/list', params: {} }),
      });
      await res.text();
      statuses.push(res.status);
    }
    expect(statuses).toEqual(Array(8).fill(200));
    const ended = await fetch(`${base}/mcp`, { method: 'DELETE', headers: session.headers });
    expect(ended.status).toBe(200);
    expect(session.headers['mcp-protocol-version']).toBe(MCP_PROTOCOL_VERSION);
  });

  it('still spreads the rest of the API over both replicas', async () => {
    const served = replicas.map(() => 0);
    const counters = replicas.map((t, i) => {
      const count = () => served[i]++;
      t.http.on('request', count);
      return () => t.http.off('request', count);
    });
    try {
      for (let i = 0; i < 6; i++) {
        const res = await fetch(`http://127.0.0.1:${site.http}/api/services`, { headers: { Authorization: owner.keyBearer } });
        expect(res.status).toBe(200);
        await res.text();
      }
    } finally {
      for (const stop of counters) stop();
    }
    expect(served.every((n) => n > 0)).toBe(true);
  });
});
