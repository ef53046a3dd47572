import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { createAccount, TestAccount } from '../factories/accounts';
import { createService } from '../factories/services';
import { Closed, closeOf, openConsoleSocket, viewScreen } from '../support/rfb-client';
import { ServerProcess, startServerProcess } from '../support/server-process';
import { startTestApp, TestApp } from '../support/test-app';
import { TEST_DATABASE_URL } from '../support/test-env';

// Several API processes share one database only on PostgreSQL.
(TEST_DATABASE_URL ? describe : describe.skip)('Console tokens across API processes (PostgreSQL)', () => {
  let app: TestApp;
  let server: ServerProcess;
  let owner: TestAccount;
  beforeAll(async () => {
    [app, server] = await Promise.all([startTestApp(), startServerProcess({})]);
    owner = await createAccount(app);
  });
  afterAll(async () => {
    await server?.stop();
    await app.close();
  });

  const wsBase = (http: string) => http.replace(/^http/, 'ws');
  const appUrl = () => `http://127.0.0.1:${(app.http.address() as AddressInfo).port}`;

  it.each([
    ['the server process', 'this test process'],
    ['this test process', 'the server process'],
  ])('a token issued by %s is served by %s', async (issuer) => {
    const [issuing, serving] = issuer === 'the server process' ? [server.url, appUrl()] : [appUrl(), server.url];
    const vps = await createService(app, owner.id);
    const res = await request(issuing).get(`/api/services/${vps.id}/instance/console`).set('Authorization', owner.bearer).expect(200);
    const issued = new URL(res.body.url);
    const { ws, stream } = await openConsoleSocket(`${wsBase(serving)}${issued.pathname}${issued.search}`);
    const result = await viewScreen(stream, res.body.password);
    expect(result).toMatchObject({ ok: true, screen: { name: `sim-${vps.id}` } });
    expect(result.ok && result.screen.colours).toBeGreaterThan(1);
    ws.close();
    const again = await openConsoleSocket(`${wsBase(issuing)}${issued.pathname}${issued.search}`).catch((err: { status: number }) => err);
    expect(again).toMatchObject({ status: 401 });
  });

  const CREDENTIAL_ENDED = { code: 1008, reason: 'The credential that opened this console was revoked or has expired.' };

  /** A console asked for and opened on `on`, showing the screen, and a promise of its close (wrapped: returned bare, it would be awaited). */
  async function openOn(on: string, bearer: string, serviceId: string): Promise<{ closed: Promise<Closed> }> {
    const res = await request(on).get(`/api/services/${serviceId}/instance/console`).set('Authorization', bearer).expect(200);
    const issued = new URL(res.body.url);
    const { ws, stream } = await openConsoleSocket(`${wsBase(on)}${issued.pathname}${issued.search}`);
    const closed = closeOf(ws);
    expect((await viewScreen(stream, res.body.password)).ok).toBe(true);
    return { closed };
  }

  it('closes a console open on one process when its API key is deleted through the other (issue 26, finding 3)', async () => {
    const account = await createAccount(app);
    const vps = await createService(app, account.id);
    const { closed } = await openOn(server.url, account.keyBearer, vps.id);
    await request(appUrl()).delete(`/api/auth/api-keys/${account.apiKeyId}`).set('Authorization', account.bearer).expect(204);
    expect(await closed).toEqual(CREDENTIAL_ENDED);
  });

  it('closes a console open on one process when its session is ended through the other', async () => {
    const account = await createAccount(app);
    const vps = await createService(app, account.id);
    const { closed } = await openOn(appUrl(), account.bearer, vps.id);
    await request(server.url).post('/api/auth/logout').set('Authorization', account.bearer).expect(204);
    expect(await closed).toEqual(CREDENTIAL_ENDED);
  });
});
