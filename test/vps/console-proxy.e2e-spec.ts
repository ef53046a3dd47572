import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { OperatorMetricsEndpoint } from '../../apps/api/src/operator-metrics/operator-metrics-endpoint';
import { createAccount, TestAccount } from '../factories/accounts';
import { createService } from '../factories/services';
import { ended, openConsoleSocket, viewScreen } from '../support/rfb-client';
import { startTestApp, TestApp } from '../support/test-app';
import { waitFor } from '../support/wait-for';

const MAX_PER_ACCOUNT = 2;
const MAX_SECONDS = 6;

/** The console WebSocket through the proxy to the simulator's VNC display, with a plain `ws` client. */
describe('Console proxy (/console WebSocket)', () => {
  let t: TestApp;
  let owner: TestAccount;
  let base: string;
  beforeAll(async () => {
    t = await startTestApp({
      CONSOLE_MAX_PER_ACCOUNT: String(MAX_PER_ACCOUNT),
      CONSOLE_MAX_SECONDS: String(MAX_SECONDS),
      METRICS_PORT: '0',
    });
    owner = await createAccount(t);
    base = `ws://127.0.0.1:${(t.http.address() as AddressInfo).port}`;
  });
  afterAll(() => t.close());

  /** A console session for a VPS, its URL pointed at this test app (PUBLIC_URL names port 3000). */
  async function consoleFor(account: TestAccount, serviceId: string): Promise<{ url: string; password: string; token: string }> {
    const res = await request(t.http).get(`/api/services/${serviceId}/instance/console`).set('Authorization', account.bearer).expect(200);
    const url = new URL(res.body.url);
    return { url: `${base}${url.pathname}${url.search}`, password: res.body.password, token: url.searchParams.get('token')! };
  }

  const refusal = (url: string) =>
    openConsoleSocket(url).then(
      ({ ws }) => {
        ws.terminate();
        throw new Error('the console opened');
      },
      (err: { status: number; body: { code: string; status: number }; headers: Record<string, string> }) => err,
    );

  const openRows = async (serviceId: string) =>
    (
      await t.db.query(
        `SELECT count(*)::int AS n FROM console_sessions WHERE service_id = $1 AND used_at IS NOT NULL AND closed_at IS NULL`,
        [serviceId],
      )
    )[0].n;

  it("connects to the machine's screen with the session password, in binary frames, and counts it in /metrics", async () => {
    const vps = await createService(t, owner.id);
    const session = await consoleFor(owner, vps.id);
    expect(session.url).toMatch(/^ws:\/\//);
    const { ws, stream } = await openConsoleSocket(session.url);
    expect(ws.protocol).toBe('binary');
    const frames: boolean[] = [];
    ws.on('message', (_data, isBinary) => frames.push(isBinary));
    const result = await viewScreen(stream, session.password);
    expect(result).toEqual({ ok: true, screen: { name: `sim-${vps.id}`, width: 640, height: 400, colours: expect.any(Number) } });
    expect(result.ok && result.screen.colours).toBeGreaterThan(1);
    expect(frames.length).toBeGreaterThan(0);
    expect(frames.every(Boolean)).toBe(true);
    expect(await openRows(vps.id)).toBe(1);

    // Metrics are served on their own port only.
    const metrics = (
      await request(`http://127.0.0.1:${t.app.get(OperatorMetricsEndpoint).port}`)
        .get('/metrics')
        .expect(200)
    ).text;
    expect(metrics).toMatch(/^console_connections_open 1$/m);
    const toClient = Number(/^console_proxied_bytes_total\{direction="to_client"\} (\d+)$/m.exec(metrics)?.[1]);
    expect(toClient).toBeGreaterThan(640 * 400 * 4);

    ws.close();
    await ended(stream);
    expect(
      await waitFor(
        () => openRows(vps.id),
        (n) => n === 0,
      ),
    ).toBe(0);
  });

  it('refuses a second use of the token, an expired, forged or missing token before any upstream connection', async () => {
    const vps = await createService(t, owner.id);
    const used = await consoleFor(owner, vps.id);
    const first = await openConsoleSocket(used.url);
    const second = await refusal(used.url);
    expect(second.status).toBe(401);
    expect(second.headers['content-type']).toBe('application/problem+json');
    expect(second.body).toMatchObject({ status: 401, code: 'unauthorized' });
    first.ws.close();

    const expired = await consoleFor(owner, vps.id);
    await t.db.query(`UPDATE console_sessions SET expires_at = now() - interval '1 second' WHERE used_at IS NULL AND service_id = $1`, [
      vps.id,
    ]);
    expect((await refusal(expired.url)).body.code).toBe('unauthorized');

    expect((await refusal(`${base}/console?token=${'A'.repeat(43)}`)).status).toBe(401);
    expect((await refusal(`${base}/console?token=%27%3B--`)).status).toBe(401);
    expect((await refusal(`${base}/console`)).body).toMatchObject({ status: 400, code: 'invalid_input' });
    expect((await refusal(`${base}/elsewhere?token=${expired.token}`)).status).toBe(404);
    expect(await openRows(vps.id)).toBe(0);
  });

  it('a wrong password fails VNC authentication and the console closes', async () => {
    const vps = await createService(t, owner.id);
    const session = await consoleFor(owner, vps.id);
    const { stream } = await openConsoleSocket(session.url);
    const wrong =
      session.password.split('').reverse().join('') === session.password ? 'zzzzzzzz' : session.password.split('').reverse().join('');
    expect(await viewScreen(stream, wrong)).toEqual({ ok: false, reason: 'Authentication failed' });
    await ended(stream);
  });

  it("another account can neither open a console on the VPS nor use its own token with this VPS's password", async () => {
    const stranger = await createAccount(t);
    const vps = await createService(t, owner.id);
    const theirs = await createService(t, stranger.id);
    const res = await request(t.http).get(`/api/services/${vps.id}/instance/console`).set('Authorization', stranger.bearer);
    expect(res.status).toBe(404);
    expect(await t.db.query('SELECT 1 FROM console_sessions WHERE service_id = $1', [vps.id])).toHaveLength(0);

    const mine = await consoleFor(owner, vps.id);
    const strangers = await consoleFor(stranger, theirs.id);
    const { stream } = await openConsoleSocket(strangers.url);
    expect(await viewScreen(stream, mine.password)).toEqual({ ok: false, reason: 'Authentication failed' });
  });

  it(`allows at most ${MAX_PER_ACCOUNT} open consoles per account, counted in the database`, async () => {
    const account = await createAccount(t);
    const vps = await createService(t, account.id);
    const sessions = [await consoleFor(account, vps.id), await consoleFor(account, vps.id), await consoleFor(account, vps.id)];
    const open = [await openConsoleSocket(sessions[0].url), await openConsoleSocket(sessions[1].url)];
    const third = await refusal(sessions[2].url);
    expect(third.status).toBe(409);
    expect(third.body.code).toBe('quota_exceeded');
    const res = await request(t.http).get(`/api/services/${vps.id}/instance/console`).set('Authorization', account.bearer);
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('quota_exceeded');

    open[0].ws.close();
    await ended(open[0].stream);
    expect(
      await waitFor(
        () => openRows(vps.id),
        (n) => n === 1,
      ),
    ).toBe(1);
    const again = await openConsoleSocket(sessions[2].url);
    expect((await viewScreen(again.stream, sessions[2].password)).ok).toBe(true);
    again.ws.close();
    open[1].ws.close();
  });

  it('is not cut when the token expires, but ends when the machine stops and after CONSOLE_MAX_SECONDS', async () => {
    const account = await createAccount(t);
    const [running, stopping] = [await createService(t, account.id), await createService(t, account.id)];
    const connect = async (serviceId: string) => {
      const session = await consoleFor(account, serviceId);
      const socket = await openConsoleSocket(session.url);
      expect((await viewScreen(socket.stream, session.password)).ok).toBe(true);
      // Wrapped: an async function returning the promise itself would wait for the close.
      return {
        closed: new Promise<{ reason: string; at: number }>((resolve) =>
          socket.ws.once('close', (_code, reason) => resolve({ reason: reason.toString(), at: Date.now() })),
        ),
      };
    };
    const opened = Date.now();
    const [limited, stopped] = [await connect(running.id), await connect(stopping.id)];
    await t.db.query(`UPDATE console_sessions SET expires_at = now() - interval '1 second' WHERE service_id = ANY($1::uuid[])`, [
      [running.id, stopping.id],
    ]);
    await request(t.http).post(`/api/services/${stopping.id}/instance/stop`).set('Authorization', account.bearer).expect(202);

    // The stop is announced: the console ends then, not at a timer; the reason tells which.
    const byStop = await stopped.closed;
    expect(byStop.reason).toBe('The machine stopped.');
    const byTime = await limited.closed;
    expect(byTime.reason).toBe('The console session reached its time limit.');
    expect(byTime.at - opened).toBeGreaterThanOrEqual(MAX_SECONDS * 1000 - 100);
  }, 20_000);
});
