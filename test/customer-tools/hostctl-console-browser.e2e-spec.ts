import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { createAccount, TestAccount } from '../factories/accounts';
import { createService } from '../factories/services';
import { browserTestsEnabled, HeadlessChromium, launchChromium, tcpProxy, TcpProxy } from '../support/browser';
import { startHostctl } from '../support/hostctl';
import { freePort } from '../support/server-process';
import { startTestApp, TestApp } from '../support/test-app';
import { waitForOrFail } from '../support/wait-for';

/**
 * `hostctl vps console <id> --open` in headless Chromium: the page hostctl serves connects through
 * the API's console proxy to the simulator's screen, names the service, logs no failed request,
 * says what to do when the connection ends, and a reload says the link was single-use.
 */
(browserTestsEnabled() ? describe : describe.skip)('hostctl vps console --open in headless Chromium', () => {
  let t: TestApp;
  let proxy: TcpProxy;
  let url: string;
  let home: string;
  let account: TestAccount;
  let browser: HeadlessChromium;

  beforeAll(async () => {
    // Console URLs are built from PUBLIC_URL: a proxy there forwards to the app, WebSockets included.
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    t = await startTestApp({ PUBLIC_URL: url });
    proxy = await tcpProxy(port, (t.http.address() as AddressInfo).port);
    home = mkdtempSync(join(tmpdir(), 'hostctl-console-'));
    account = await createAccount(t);
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await proxy?.close();
    await t.close();
    rmSync(home, { recursive: true, force: true });
  });

  it('connects and names the service, says how to get a new link when it ends, and a reload says the link was used', async () => {
    const vps = await createService(t, account.id, { type: 'vps', name: 'web-1' });
    // $BROWSER: a stand-in that only notes the page's address, which Chromium then opens.
    const opener = join(home, 'opener.sh');
    writeFileSync(opener, `#!/bin/sh\nprintf %s "$1" > ${JSON.stringify(join(home, 'page.txt'))}\n`, { mode: 0o755 });
    const hostctl = startHostctl(['vps', 'console', vps.id, '--open'], {
      home,
      env: { HOSTCTL_URL: url, HOSTCTL_TOKEN: account.apiKey, BROWSER: opener },
    });
    const exited = new Promise<number | null>((resolve) => hostctl.child.on('close', resolve));
    try {
      const address = await waitForOrFail(
        async () => {
          try {
            return readFileSync(join(home, 'page.txt'), 'utf8');
          } catch {
            return '';
          }
        },
        (text) => text.startsWith('http://127.0.0.1:'),
        15_000,
        () => `hostctl did not open a page: ${hostctl.stderr()}`,
      );

      const page = await browser.context.newPage();
      const failed: string[] = [];
      page.on('requestfailed', (req) => failed.push(`${req.url()} ${req.failure()?.errorText}`));
      page.on('response', (res) => res.status() >= 400 && res.url() !== address && failed.push(`${res.url()} ${res.status()}`));
      page.on('console', (message) => message.type() === 'error' && failed.push(`console: ${message.text()}`));

      await page.goto(address);
      await page
        .getByRole('status')
        .filter({ hasText: 'Connected to web-1' })
        .waitFor({ timeout: 20_000 })
        .catch(async (error: Error) => {
          throw new Error(`${error.message}\nstatus: ${await page.locator('#status').textContent()}\nfailed: ${failed.join('\n')}`);
        });
      expect(await page.title()).toBe('web-1 - hostctl console');
      expect(await page.locator('#screen canvas').count()).toBe(1);
      const href = await page.locator('link[rel="icon"]').getAttribute('href');
      const iconAnswer = await page.request.get(new URL(href!, address).href);
      const icon = { status: iconAnswer.status(), type: iconAnswer.headers()['content-type'] };
      expect(icon).toEqual({ status: 200, type: 'image/svg+xml' });

      // The machine stops: the proxy ends the console, and the page says how to get another.
      await request(t.http).post(`/api/services/${vps.id}/instance/stop`).set('Authorization', account.keyBearer).expect(202);
      await page
        .getByRole('status')
        .filter({ hasText: `A console link connects once: run "hostctl vps console ${vps.id} --open" for a new one.` })
        .waitFor({ timeout: 20_000 });
      expect(failed).toEqual([]);

      const reload = await page.reload();
      expect(reload?.status()).toBe(410);
      await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('This console link has been used');
      expect(await page.locator('code').textContent()).toBe(`hostctl vps console ${vps.id} --open`);
      expect(failed.filter((line) => !line.startsWith('console: Failed to load resource'))).toEqual([]);
      await page.close();
    } finally {
      hostctl.child.kill('SIGINT');
    }
    expect(await exited).toBe(0);
  }, 150_000);
});
