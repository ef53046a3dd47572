import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import request from 'supertest';
import { createAccount, TestAccount } from '../factories/accounts';
import { createService } from '../factories/services';
import { browserTestsEnabled, HeadlessChromium, launchChromium } from '../support/browser';
import { NoVncPage, openInNoVnc, serveNoVncPage } from '../support/novnc-page';
import { startTestApp, TestApp } from '../support/test-app';

/** noVNC, as dashboards embed it, in headless Chromium through the console proxy to the simulator's screen. */
(browserTestsEnabled() ? describe : describe.skip)('Console in noVNC (headless Chromium)', () => {
  let t: TestApp;
  let owner: TestAccount;
  let browser: HeadlessChromium;
  let novnc: NoVncPage;
  let page: Page;
  let base: string;
  beforeAll(async () => {
    [browser, novnc] = await Promise.all([launchChromium(), serveNoVncPage()]);
    // The dashboard's origin is allowed to open consoles.
    t = await startTestApp({ CORS_ORIGINS: new URL(novnc.url).origin });
    owner = await createAccount(t);
    base = `ws://127.0.0.1:${(t.http.address() as AddressInfo).port}`;
  });
  beforeEach(async () => {
    page = await browser.context.newPage();
  });
  afterEach(() => page.close());
  afterAll(async () => {
    await browser?.close();
    await novnc?.close();
    await t.close();
  });

  async function consoleFor(account: TestAccount, serviceId: string): Promise<{ url: string; password: string }> {
    const res = await request(t.http).get(`/api/services/${serviceId}/instance/console`).set('Authorization', account.bearer).expect(200);
    const url = new URL(res.body.url);
    return { url: `${base}${url.pathname}${url.search}`, password: res.body.password };
  }

  it("authenticates with the session password and draws the machine's screen, named after it", async () => {
    const vps = await createService(t, owner.id);
    const session = await consoleFor(owner, vps.id);
    const { events, colours } = await openInNoVnc(page, novnc.url, session.url, session.password);
    expect(events).toEqual(expect.arrayContaining(['connect', `desktopname:sim-${vps.id}`]));
    expect(events.some((e) => e.startsWith('disconnect'))).toBe(false);
    expect(colours).toBeGreaterThan(1);
    const shot = await page.locator('#screen canvas').screenshot();
    expect(shot.length).toBeGreaterThan(1000);
  });

  it("fails with a wrong password, a used token, an expired token and another account's token", async () => {
    const stranger = await createAccount(t);
    const vps = await createService(t, owner.id);
    const theirs = await createService(t, stranger.id);

    const wrong = await consoleFor(owner, vps.id);
    const badPassword = await openInNoVnc(page, novnc.url, wrong.url, `${wrong.password.slice(1)}x`);
    expect(badPassword.events).toEqual(expect.arrayContaining([expect.stringMatching(/^securityfailure/)]));
    expect(badPassword.events).not.toContain('connect');

    const used = await openInNoVnc(page, novnc.url, wrong.url, wrong.password);
    expect(used.events.some((e) => e.startsWith('disconnect'))).toBe(true);
    expect(used.events).not.toContain('connect');

    const expired = await consoleFor(owner, vps.id);
    await t.db.query(`UPDATE console_sessions SET expires_at = now() - interval '1 second' WHERE used_at IS NULL AND service_id = $1`, [
      vps.id,
    ]);
    const late = await openInNoVnc(page, novnc.url, expired.url, expired.password);
    expect(late.events).not.toContain('connect');

    const mine = await consoleFor(owner, vps.id);
    const strangers = await consoleFor(stranger, theirs.id);
    const crossed = await openInNoVnc(page, novnc.url, strangers.url, mine.password);
    expect(crossed.events).toEqual(expect.arrayContaining([expect.stringMatching(/^securityfailure/)]));
    expect(crossed.events.some((e) => e.startsWith('desktopname'))).toBe(false);
  });

  it('cannot open a console from a page of another origin, and the token stays unspent', async () => {
    const vps = await createService(t, owner.id);
    const session = await consoleFor(owner, vps.id);
    // The same page from http://localhost: another origin than the allowed http://127.0.0.1.
    const elsewhere = novnc.url.replace('127.0.0.1', 'localhost');
    const refused = await openInNoVnc(page, elsewhere, session.url, session.password);
    expect(refused.events).not.toContain('connect');
    expect(refused.events.some((e) => e.startsWith('disconnect'))).toBe(true);
    const allowed = await openInNoVnc(page, novnc.url, session.url, session.password);
    expect(allowed.events).toEqual(expect.arrayContaining(['connect', `desktopname:sim-${vps.id}`]));
  });
});
