import type { AddressInfo } from 'node:net';
import request from 'supertest';
import type WebSocket from 'ws';
import { ConsoleConnections } from '../../libs/vps/src/console/console-connections';
import { ServiceStatusService } from '../../libs/services/src/service-status.service';
import { createAccount, TestAccount } from '../factories/accounts';
import { createService } from '../factories/services';
import { Closed, closeOf, openConsoleSocket, viewScreen } from '../support/rfb-client';
import { startTestApp, TestApp } from '../support/test-app';

const CREDENTIAL_ENDED = 'The credential that opened this console was revoked or has expired.';
const ALLOWED_ORIGIN = 'https://dashboard.example.test';

/**
 * A console lives no longer than the credential that asked for it, and opens only from
 * the API's own origin or CORS_ORIGINS.
 */
describe('Console and its credential', () => {
  let t: TestApp;
  let base: string;
  beforeAll(async () => {
    t = await startTestApp({ CORS_ORIGINS: `${ALLOWED_ORIGIN}, https://other.example.test` });
    base = `ws://127.0.0.1:${(t.http.address() as AddressInfo).port}`;
  });
  afterAll(() => t.close());

  /** A console session for a VPS asked for with `bearer`, its URL pointed at this test app. */
  async function consoleWith(bearer: string, serviceId: string): Promise<{ url: string; password: string }> {
    const res = await request(t.http).get(`/api/services/${serviceId}/instance/console`).set('Authorization', bearer).expect(200);
    const url = new URL(res.body.url);
    return { url: `${base}${url.pathname}${url.search}`, password: res.body.password };
  }

  /** An open console showing the machine's screen, and a promise of its close. */
  async function openConsole(bearer: string, serviceId: string): Promise<{ ws: WebSocket; closed: Promise<Closed> }> {
    const session = await consoleWith(bearer, serviceId);
    const { ws, stream } = await openConsoleSocket(session.url);
    const closed = closeOf(ws);
    expect((await viewScreen(stream, session.password)).ok).toBe(true);
    return { ws, closed };
  }

  const refusalOf = (url: string, headers?: Record<string, string>) =>
    openConsoleSocket(url, headers).then(
      ({ ws }) => {
        ws.terminate();
        throw new Error('the console opened');
      },
      (err: { status: number; body: { code: string; detail: string }; headers: Record<string, string> }) => err,
    );

  const sessionIdOf = (account: TestAccount) =>
    (JSON.parse(Buffer.from(account.accessToken.split('.')[1], 'base64url').toString()) as { sid: string }).sid;

  /** The account's consoles this app holds once a check of all of them has run to its end. */
  const openAfterCheck = async (account: TestAccount): Promise<number> => {
    const connections = t.app.get(ConsoleConnections);
    await connections.recheck(account.id);
    return connections.openFor(account.id);
  };

  it("closes a console when the API key that opened it is deleted, and keeps the account's other consoles", async () => {
    const account = await createAccount(t);
    const vps = await createService(t, account.id);
    const [byKey, bySession] = [await openConsole(account.keyBearer, vps.id), await openConsole(account.bearer, vps.id)];
    await request(t.http).delete(`/api/auth/api-keys/${account.apiKeyId}`).set('Authorization', account.bearer).expect(204);
    expect(await byKey.closed).toEqual({ code: 1008, reason: CREDENTIAL_ENDED });
    expect(await openAfterCheck(account)).toBe(1);
    expect(bySession.ws.readyState).toBe(bySession.ws.OPEN);
    bySession.ws.close();
  });

  it('closes a console when its session is ended from the sessions list, and at logout', async () => {
    const account = await createAccount(t);
    const vps = await createService(t, account.id);
    const login = await request(t.http).post('/api/auth/login').send({ email: account.email, password: account.password }).expect(200);
    const other = `Bearer ${login.body.accessToken}`;
    const [first, second] = [await openConsole(account.bearer, vps.id), await openConsole(other, vps.id)];
    await request(t.http)
      .delete(`/api/auth/sessions/${sessionIdOf(account)}`)
      .set('Authorization', other)
      .expect(204);
    expect(await first.closed).toEqual({ code: 1008, reason: CREDENTIAL_ENDED });
    expect(await openAfterCheck(account)).toBe(1);
    expect(second.ws.readyState).toBe(second.ws.OPEN);
    await request(t.http).post('/api/auth/logout').set('Authorization', other).expect(204);
    expect(await second.closed).toEqual({ code: 1008, reason: CREDENTIAL_ENDED });
  });

  it("closes the consoles of the account's other sessions when the password changes", async () => {
    const account = await createAccount(t);
    const vps = await createService(t, account.id);
    const login = await request(t.http).post('/api/auth/login').send({ email: account.email, password: account.password }).expect(200);
    const opened = await openConsole(account.bearer, vps.id);
    await request(t.http)
      .post('/api/auth/password')
      .set('Authorization', `Bearer ${login.body.accessToken}`)
      .send({ currentPassword: account.password, newPassword: 'another long passphrase' })
      .expect(204);
    expect(await opened.closed).toEqual({ code: 1008, reason: CREDENTIAL_ENDED });
  });

  it('refuses a token issued before its API key was deleted or its session ended, and leaves nothing open', async () => {
    const account = await createAccount(t);
    const vps = await createService(t, account.id);
    const byKey = await consoleWith(account.keyBearer, vps.id);
    const bySession = await consoleWith(account.bearer, vps.id);
    await request(t.http).delete(`/api/auth/api-keys/${account.apiKeyId}`).set('Authorization', account.bearer).expect(204);
    await request(t.http).post('/api/auth/logout').set('Authorization', account.bearer).expect(204);
    for (const url of [byKey.url, bySession.url]) {
      const refused = await refusalOf(url);
      expect(refused.status).toBe(401);
      expect(refused.body).toMatchObject({ code: 'unauthorized', detail: expect.stringContaining('revoked') });
    }
    const [{ n }] = await t.db.query(
      `SELECT count(*)::int AS n FROM console_sessions WHERE service_id = $1 AND used_at IS NOT NULL AND closed_at IS NULL`,
      [vps.id],
    );
    expect(n).toBe(0);
  });

  it('closes a console opened with an API key when the key expires', async () => {
    const account = await createAccount(t);
    const vps = await createService(t, account.id);
    const expiresAt = new Date(Date.now() + 8_000).toISOString();
    const created = await request(t.http)
      .post('/api/auth/api-keys')
      .set('Authorization', account.bearer)
      .send({ name: 'short-lived', expiresAt })
      .expect(201);
    const opened = await openConsole(`Bearer ${created.body.key}`, vps.id);
    expect(await opened.closed).toEqual({ code: 1008, reason: CREDENTIAL_ENDED });
    expect(Date.now()).toBeGreaterThanOrEqual(new Date(expiresAt).getTime() - 50);
  }, 20_000);

  it('closes a console when its service is suspended', async () => {
    const account = await createAccount(t);
    const vps = await createService(t, account.id);
    const opened = await openConsole(account.bearer, vps.id);
    await t.app.get(ServiceStatusService).setStatus(vps.id, 'suspended', 'unpaid');
    expect(await opened.closed).toEqual({ code: 1000, reason: 'The service is no longer active.' });
  });

  describe('Origin', () => {
    it("opens from PUBLIC_URL's origin, a CORS_ORIGINS entry, or without an Origin (not a browser)", async () => {
      const account = await createAccount(t);
      const vps = await createService(t, account.id);
      for (const origin of [new URL(t.config.publicUrl).origin, ALLOWED_ORIGIN, 'https://other.example.test', undefined]) {
        const session = await consoleWith(account.bearer, vps.id);
        const { ws, stream } = await openConsoleSocket(session.url, origin ? { Origin: origin } : undefined);
        expect((await viewScreen(stream, session.password)).ok).toBe(true);
        ws.close();
        await closeOf(ws);
      }
    });

    it('refuses any other origin with 403 before the upgrade, and leaves the token unspent', async () => {
      const account = await createAccount(t);
      const vps = await createService(t, account.id);
      const session = await consoleWith(account.bearer, vps.id);
      for (const origin of ['https://evil.example.test', 'null', `${ALLOWED_ORIGIN}.evil.test`, 'http://dashboard.example.test']) {
        const refused = await refusalOf(session.url, { Origin: origin });
        expect(refused.status).toBe(403);
        expect(refused.body).toMatchObject({ code: 'forbidden' });
        expect(refused.headers['x-content-type-options']).toBe('nosniff');
      }
      const { ws, stream } = await openConsoleSocket(session.url);
      expect((await viewScreen(stream, session.password)).ok).toBe(true);
      ws.close();
    });

    it("answers its own 401 with nosniff, no-store and the problem's content type", async () => {
      const refused = await refusalOf(`${base}/console?token=${'A'.repeat(43)}`);
      expect(refused.status).toBe(401);
      expect(refused.headers).toMatchObject({
        'content-type': 'application/problem+json',
        'x-content-type-options': 'nosniff',
        'cache-control': 'no-store',
      });
    });
  });
});
