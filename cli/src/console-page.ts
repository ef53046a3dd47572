import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createReadStream, existsSync } from 'node:fs';
import { createServer } from 'node:http';
import { dirname, extname, join, normalize, sep } from 'node:path';
import type { Schemas } from '@hosting-account/sdk';
import { relayWebSocket } from './websocket-relay';

type ConsoleSession = Schemas['ConsoleSessionResponse'];

/** The VPS a console page is for, and the command that gives a new session. */
export interface ConsoleService {
  id: string;
  name?: string;
  again: string;
}

const FAVICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect x="1" y="2" width="14" height="10" rx="1" fill="#222" stroke="#e88d1e"/><path d="M4 6l2 1.5L4 9M7.5 9.5H11" stroke="#ddd" fill="none"/><path d="M5 14h6" stroke="#e88d1e" stroke-width="2"/></svg>`;

/**
 * Serves a page that runs noVNC against the session on 127.0.0.1 (noVNC is an ES module, which a
 * browser will not load from a file:// page) and opens it in the browser. Runs until Ctrl-C.
 * The session connects once, so the page is served once: a reload says how to get a new one.
 */
export async function openConsolePage(session: ConsoleSession, service: ConsoleService): Promise<void> {
  const novnc = novncDirectory();
  if (!novnc) {
    process.stderr.write(
      'To open the console in a browser, install noVNC next to hostctl (npm install -g @novnc/novnc), or connect any VNC client that speaks WebSocket to the URL above.\n',
    );
    return;
  }
  const secret = randomBytes(16).toString('hex');
  const { again } = service;
  let served = false;
  let pageSession = session;
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://localhost').pathname);
    if (path === '/favicon.svg' || path === '/favicon.ico') {
      res.writeHead(200, { 'Content-Type': 'image/svg+xml', 'Cache-Control': 'max-age=86400' });
      return res.end(FAVICON);
    }
    if (path === `/${secret}/`) {
      const headers = { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer' };
      if (served) return res.writeHead(410, headers).end(usedPage(service, again));
      served = true;
      return res.writeHead(200, headers).end(page(pageSession, service, again, `/${secret}/novnc/core/rfb.js`));
    }
    const file = normalize(join(novnc, path.slice(`/${secret}/novnc/`.length)));
    if (!path.startsWith(`/${secret}/novnc/`) || !file.startsWith(novnc + sep) || !existsSync(file)) return res.writeHead(404).end();
    res.writeHead(200, { 'Content-Type': extname(file) === '.js' ? 'text/javascript' : 'application/octet-stream' });
    createReadStream(file).pipe(res);
  });
  let relayed = false;
  server.on('upgrade', (req, socket, head: Buffer) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (path !== `/${secret}/websocket` || relayed) return socket.end('HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n');
    relayed = true;
    relayWebSocket(req, socket, head, session.url);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  const url = `http://127.0.0.1:${port}/${secret}/`;
  pageSession = { ...session, url: `ws://127.0.0.1:${port}/${secret}/websocket` };
  process.stderr.write(`Console page: ${url}\nPress Ctrl-C to stop serving it.\n`);
  openBrowser(url);
  await new Promise<void>((resolve) => process.once('SIGINT', resolve));
  server.close();
}

function novncDirectory(): string | undefined {
  try {
    // The package exports only core/rfb.js (not its package.json); the files sit around it.
    return dirname(dirname(require.resolve('@novnc/novnc')));
  } catch {
    return undefined;
  }
}

/** `$BROWSER` if set, else the platform's opener. */
function openBrowser(url: string): void {
  const command = process.env.BROWSER || (process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer' : 'xdg-open');
  const child = spawn(command, [url], { stdio: 'ignore', detached: true });
  child.on('error', () => process.stderr.write(`Could not start "${command}": open ${url} yourself.\n`));
  child.unref();
}

const STYLE =
  'html,body{margin:0;height:100%;background:#222;color:#ddd;font:14px sans-serif}#status{padding:4px 8px}' +
  '#screen{height:calc(100% - 26px)}code{background:#333;padding:1px 4px}main{padding:2em;max-width:40em}';

function head(service: ConsoleService): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(service.name ?? service.id)} - hostctl console</title>
<link rel="icon" href="/favicon.svg" type="image/svg+xml"><style>${STYLE}</style></head>`;
}

function page(session: ConsoleSession, service: ConsoleService, again: string, rfbModule: string): string {
  const config = JSON.stringify({ url: session.url, password: session.password, again, name: service.name ?? service.id }).replace(
    /</g,
    '\\u003c',
  );
  return `${head(service)}
<body><div id="status" role="status">Connecting...</div><div id="screen"></div>
<script type="module">
import RFB from ${JSON.stringify(rfbModule)};
const { url, password, again, name } = ${config};
const status = document.getElementById('status');
let failure = '';
const rfb = new RFB(document.getElementById('screen'), url, { credentials: { password } });
rfb.scaleViewport = true;
rfb.addEventListener('connect', () => (status.textContent = 'Connected to ' + name));
rfb.addEventListener('securityfailure', (e) => (failure = 'Authentication failed: ' + (e.detail.reason || 'no reason given')));
rfb.addEventListener('disconnect', (e) => {
  const what = failure || (e.detail.clean ? 'Disconnected' : 'Connection lost');
  status.textContent = what + '. A console link connects once: run "' + again + '" for a new one.';
});
</script></body></html>`;
}

/** What a reload gets: the session was handed to the first load and cannot connect again. */
function usedPage(service: ConsoleService, again: string): string {
  return `${head(service)}
<body><main><h1>This console link has been used</h1>
<p>A console session connects once, within 60 seconds, so reloading this page cannot connect again.</p>
<p>For a new one, stop the hostctl that serves this page (Ctrl-C) and run:</p>
<p><code>${escapeHtml(again)}</code></p></main></body></html>`;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
