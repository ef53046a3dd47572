import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { createAccount, TestAccount } from '../factories/accounts';
import { browserTestsEnabled, launchChromium } from '../support/browser';
import { libvirtCompute } from '../support/hosts';
import { removeDomain, libvirtTestsEnabled } from '../support/libvirt';
import { NoVncPage, openInNoVnc, serveNoVncPage } from '../support/novnc-page';
import { openConsoleSocket, RfbResult, viewScreen } from '../support/rfb-client';
import { runCliIn } from '../support/run-cli-in-app';
import { startTestApp, TestApp } from '../support/test-app';

const enabled = libvirtTestsEnabled();
const compute = libvirtCompute();

/** The console proxy in front of a real QEMU guest's VNC server (the built-in diskless guest: SeaBIOS's screen). */
(enabled ? describe : describe.skip)('Console on a libvirt guest (real QEMU VNC)', () => {
  let t: TestApp;
  let owner: TestAccount;
  let vps: { id: string; domain: string };
  let novnc: NoVncPage;
  beforeAll(async () => {
    novnc = await serveNoVncPage();
    // The page's origin is allowed to open consoles, as a dashboard's would be.
    t = await startTestApp({ ...compute, CORS_ORIGINS: new URL(novnc.url).origin });
    owner = await createAccount(t);
    const res = await runCliIn(t.app, ['service:provision', '--email', owner.email, '--type', 'vps', '--product', 'vps-xs']);
    expect(res.code).toBe(0);
    vps = { id: res.lines[0].id, domain: `svc-${res.lines[0].id}` };
  }, 120_000);
  afterAll(async () => {
    if (vps) await removeDomain(vps.domain);
    await t?.close();
    await novnc?.close();
  });

  async function consoleFor(): Promise<{ url: string; password: string }> {
    const res = await request(t.http).get(`/api/services/${vps.id}/instance/console`).set('Authorization', owner.bearer).expect(200);
    const url = new URL(res.body.url);
    return { url: `ws://127.0.0.1:${(t.http.address() as AddressInfo).port}${url.pathname}${url.search}`, password: res.body.password };
  }

  it("shows the guest's screen through the proxy with the session password, and refuses a wrong one", async () => {
    // The guest may still be black while the firmware starts: look again with a new console.
    let result: RfbResult = { ok: false, reason: 'not tried' };
    for (let tries = 0; tries < 30; tries++) {
      const session = await consoleFor();
      const { ws, stream } = await openConsoleSocket(session.url);
      result = await viewScreen(stream, session.password);
      ws.close();
      if (!result.ok || result.screen.colours > 1) break;
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
    expect(result).toMatchObject({ ok: true, screen: { name: expect.stringContaining(vps.domain) } });
    expect(result.ok && result.screen.colours).toBeGreaterThan(1);

    const session = await consoleFor();
    const { stream } = await openConsoleSocket(session.url);
    expect(await viewScreen(stream, `${session.password.slice(1)}x`)).toMatchObject({ ok: false });
  }, 90_000);

  (browserTestsEnabled() ? it : it.skip)(
    "noVNC in headless Chromium draws the guest's screen, named after the domain",
    async () => {
      const browser = await launchChromium();
      try {
        const tab = await browser.context.newPage();
        const session = await consoleFor();
        const { events, colours } = await openInNoVnc(tab, novnc.url, session.url, session.password);
        expect(events).toContain('connect');
        expect(events.some((e) => e.startsWith('desktopname:') && e.includes(vps.domain))).toBe(true);
        expect(colours).toBeGreaterThan(1);
      } finally {
        await browser.close();
      }
    },
    90_000,
  );
});
