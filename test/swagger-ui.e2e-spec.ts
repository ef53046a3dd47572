import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { createAccount, TestAccount } from './factories/accounts';
import { createService } from './factories/services';
import { browserTestsEnabled, HeadlessChromium, launchChromium, tcpProxy, TcpProxy } from './support/browser';
import { freePort } from './support/server-process';
import { startTestApp, TestApp } from './support/test-app';

/**
 * Swagger UI at /docs in a real (headless Debian) Chromium: authorise with an API key through the
 * Authorize dialog, then "Try it out" on GET /api/services and read the answer in the page.
 */
(browserTestsEnabled() ? describe : describe.skip)('Swagger UI in a browser', () => {
  let t: TestApp;
  let proxy: TcpProxy;
  let publicUrl: string;
  let account: TestAccount;
  let browser: HeadlessChromium;
  let page: Page;
  const problems: string[] = [];

  beforeAll(async () => {
    // Swagger UI sends requests to the document's server, PUBLIC_URL: put that origin in front of
    // the test app (which listens on a port of its own), as a reverse proxy would.
    const port = await freePort();
    publicUrl = `http://127.0.0.1:${port}`;
    t = await startTestApp({ PUBLIC_URL: publicUrl });
    proxy = await tcpProxy(port, (t.http.address() as AddressInfo).port);
    account = await createAccount(t);
    await createService(t, account.id, { type: 'vps', name: 'swagger-web-1' });
    browser = await launchChromium();
    page = await browser.context.newPage();
    page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
    page.on('requestfailed', (req) => problems.push(`request failed: ${req.method()} ${req.url()} ${req.failure()?.errorText}`));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await proxy?.close();
    await t?.close();
  });

  it('authorises with an API key and executes GET /api/services from the page', async () => {
    const docs = await page.goto(`${publicUrl}/docs`);
    expect(docs?.status()).toBe(200);
    await page.locator('.swagger-ui .info .title').filter({ hasText: 'Hosting account API' }).waitFor();

    // Authorize: paste the key into the bearer field, apply, close.
    await page.locator('.auth-wrapper button.authorize').click();
    const dialog = page.locator('.modal-ux');
    await dialog.waitFor();
    await dialog.locator('input[aria-label="auth-bearer-value"]').fill(account.apiKey);
    await dialog.locator('button.authorize').click();
    await dialog.locator('h6').filter({ hasText: 'Authorized' }).waitFor();
    await dialog.locator('button.btn-done').click();
    await dialog.waitFor({ state: 'detached' });
    await page.locator('.auth-wrapper button.authorize.locked').waitFor();

    // GET /api/services: expand, Try it out, Execute.
    const operation = page.locator('.opblock.opblock-get').filter({ has: page.locator('.opblock-summary-path[data-path="/api/services"]') });
    await operation.waitFor();
    await operation.locator('.opblock-summary-control').click();
    await operation.locator('button.try-out__btn').click();
    await operation.locator('button.execute').click();

    const live = operation.locator('.live-responses-table .response');
    await live.locator('.response-col_status').waitFor({ timeout: 30_000 });
    expect((await live.locator('.response-col_status').innerText()).trim()).toBe('200');
    const body = await live.locator('.response-col_description .highlight-code').innerText();
    expect(body).toContain('"data"');
    expect(body).toContain('swagger-web-1');

    // The page sent the key it was given, to the document's server.
    const curl = await operation.locator('.curl-command').innerText();
    expect(curl).toContain(`Authorization: Bearer ${account.apiKey}`);
    expect(await operation.locator('.request-url').innerText()).toContain(`${publicUrl}/api/services`);
    expect(problems).toEqual([]);
  });
});
