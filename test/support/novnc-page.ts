import { readFile } from 'node:fs/promises';
import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, normalize } from 'node:path';
import type { Page } from 'playwright-core';

const NOVNC = join(__dirname, '../../node_modules/@novnc/novnc');

// A dashboard's console page: noVNC's RFB client (an ES module) in a 640x400 box.
const PAGE = `<!doctype html><html><body style="margin:0">
<div id="screen" style="width:640px;height:400px"></div>
<script type="module">
  import RFB from '/novnc/core/rfb.js';
  window.openConsole = (url, password) => {
    const events = [];
    window.consoleEvents = events;
    const rfb = new RFB(document.getElementById('screen'), url, { credentials: { password }, wsProtocols: ['binary'] });
    rfb.addEventListener('connect', () => events.push('connect'));
    rfb.addEventListener('desktopname', (e) => events.push('desktopname:' + e.detail.name));
    rfb.addEventListener('securityfailure', (e) => events.push('securityfailure:' + (e.detail.reason || e.detail.status)));
    rfb.addEventListener('disconnect', (e) => events.push(e.detail.clean ? 'disconnect' : 'disconnect:unclean'));
    window.rfb = rfb;
  };
  window.canvasColours = () => {
    const canvas = document.querySelector('#screen canvas');
    if (!canvas || !canvas.width) return 0;
    const data = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
    const seen = new Set();
    for (let i = 0; i < data.length; i += 4) seen.add((data[i] << 16) | (data[i + 1] << 8) | data[i + 2]);
    return seen.size;
  };
  window.ready = true;
</script></body></html>`;

export interface NoVncPage {
  url: string;
  close(): Promise<void>;
}

/** Serves the console page and noVNC's modules on loopback (ES modules need an http origin). */
export async function serveNoVncPage(): Promise<NoVncPage> {
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (path === '/') {
      res.writeHead(200, { 'Content-Type': 'text/html' }).end(PAGE);
      return;
    }
    const file = normalize(join(NOVNC, path.replace(/^\/novnc\//, '/')));
    if (!path.startsWith('/novnc/') || !file.startsWith(NOVNC)) {
      res.writeHead(404).end();
      return;
    }
    readFile(file).then(
      (body) => res.writeHead(200, { 'Content-Type': 'text/javascript' }).end(body),
      () => res.writeHead(404).end(),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** Opens a console in the page; resolves with noVNC's events once it connected and drew, or gave up. */
export async function openInNoVnc(
  page: Page,
  pageUrl: string,
  consoleUrl: string,
  password: string,
): Promise<{ events: string[]; colours: number }> {
  await page.goto(pageUrl);
  // Page-side code as strings: the tests compile without the DOM's types.
  await page.waitForFunction('window.ready === true');
  await page.evaluate(`window.openConsole(${JSON.stringify(consoleUrl)}, ${JSON.stringify(password)})`);
  await page.waitForFunction(
    `window.consoleEvents.some((e) => e.startsWith('disconnect')) || (window.consoleEvents.includes('connect') && window.canvasColours() > 1)`,
    undefined,
    { timeout: 20_000 },
  );
  return page.evaluate<{ events: string[]; colours: number }>(`({ events: [...window.consoleEvents], colours: window.canvasColours() })`);
}
