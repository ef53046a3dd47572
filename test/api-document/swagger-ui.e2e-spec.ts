import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { createAccount, TestAccount } from '../factories/accounts';
import { createService } from '../factories/services';
import { browserTestsEnabled, HeadlessChromium, launchChromium, tcpProxy, TcpProxy } from '../support/browser';
import { freePort } from '../support/server-process';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * Swagger UI at /docs in a real (headless Debian) Chromium: authorise with an API key through the
 * Authorize dialog, then "Try it out" on GET /api/services and read the answer in the page, from
 * PUBLIC_URL's origin and from another address of the same server (its one server entry is relative).
 */
(browserTestsEnabled() ? describe : describe.skip)('Swagger UI in a browser', () => {
  let t: TestApp;
  let proxy: TcpProxy;
  let port: number;
  let account: TestAccount;
  let browser: HeadlessChromium;
  const problems: string[] = [];

  beforeAll(async () => {
    // PUBLIC_URL names localhost on the port a reverse proxy listens on, in front of the test app
    // (which has a port of its own); people also open the docs by IP address, the same port.
    port = await freePort();
    t = await startTestApp({ PUBLIC_URL: `http://localhost:${port}`, DOCS_ENABLED: 'true' });
    proxy = await tcpProxy(port, (t.http.address() as AddressInfo).port);
    account = await createAccount(t);
    await createService(t, account.id, { type: 'vps', name: 'swagger-web-1' });
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await proxy?.close();
    await t?.close();
  });

  async function openDocs(origin: string): Promise<Page> {
    problems.length = 0;
    const page = await browser.context.newPage();
    page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
    page.on('requestfailed', (req) => problems.push(`request failed: ${req.method()} ${req.url()} ${req.failure()?.errorText}`));
    // Chromium reports each Content-Security-Policy violation on the console, so a page the CSP breaks fails here.
    page.on('console', (message) => {
      if (message.type() === 'error' || /Content Security Policy/i.test(message.text())) problems.push(`console: ${message.text()}`);
    });
    const docs = await page.goto(`${origin}/docs`);
    expect(docs?.status()).toBe(200);
    expect(docs?.headers()['content-security-policy']).toMatch(/default-src 'none'.*script-src 'self'/);
    await page.locator('.swagger-ui .info .title').filter({ hasText: 'Hosting account API' }).waitFor();
    return page;
  }

  async function authorize(page: Page): Promise<void> {
    await page.locator('.auth-wrapper button.authorize').click();
    const dialog = page.locator('.modal-ux');
    await dialog.waitFor();
    await dialog.locator('input[aria-label="auth-bearer-value"]').fill(account.apiKey);
    await dialog.locator('button.authorize').click();
    await dialog.locator('h6').filter({ hasText: 'Authorized' }).waitFor();
    await dialog.locator('button.btn-done').click();
    await dialog.waitFor({ state: 'detached' });
    await page.locator('.auth-wrapper button.authorize.locked').waitFor();
  }

  /** Expands GET /api/services, Try it out, Execute; checks the answer and where it went. */
  async function executeListServices(page: Page, origin: string): Promise<void> {
    const operation = page
      .locator('.opblock.opblock-get')
      .filter({ has: page.locator('.opblock-summary-path[data-path="/api/services"]') });
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

    const curl = await operation.locator('.curl-command').innerText();
    expect(curl).toContain(`Authorization: Bearer ${account.apiKey}`);
    expect(await operation.locator('.request-url').innerText()).toContain(`${origin}/api/services`);
    expect(problems).toEqual([]);
  }

  it('authorises with an API key and executes GET /api/services at PUBLIC_URL', async () => {
    const origin = `http://localhost:${port}`;
    const page = await openDocs(origin);
    await authorize(page);
    await executeListServices(page, origin);
    await page.close();
  });

  it('does the same at another address of the server (the document names no host, so no CORS)', async () => {
    const origin = `http://127.0.0.1:${port}`;
    const page = await openDocs(origin);
    await authorize(page);
    await executeListServices(page, origin);
    await page.close();
  });
});
