import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createReadStream, existsSync } from 'node:fs';
import { createServer } from 'node:http';
import { dirname, extname, join, normalize, sep } from 'node:path';
import type { Schemas } from '@hosting-account/sdk';

type ConsoleSession = Schemas['ConsoleSessionResponse'];

/**
 * Serves a page that runs noVNC against the session on 127.0.0.1 (noVNC is an ES module, which a
 * browser will not load from a file:// page) and opens it in the browser. Runs until Ctrl-C.
 */
export async function openConsolePage(session: ConsoleSession): Promise<void> {
  const novnc = novncDirectory();
  if (!novnc) {
    process.stderr.write(
      'To open the console in a browser, install noVNC next to hostctl (npm install -g @novnc/novnc), or connect any VNC client that speaks WebSocket to the URL above.\n',
    );
    return;
  }
  const secret = randomBytes(16).toString('hex');
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://localhost').pathname);
    if (path === `/${secret}/`) {
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer' });
      return res.end(page(session, `/${secret}/novnc/core/rfb.js`));
    }
    const file = normalize(join(novnc, path.slice(`/${secret}/novnc/`.length)));
    if (!path.startsWith(`/${secret}/novnc/`) || !file.startsWith(novnc + sep) || !existsSync(file)) return res.writeHead(404).end();
    res.writeHead(200, { 'Content-Type': extname(file) === '.js' ? 'text/javascript' : 'application/octet-stream' });
    createReadStream(file).pipe(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  const url = `http://127.0.0.1:${port}/${secret}/`;
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

function page(session: ConsoleSession, rfbModule: string): string {
  const config = JSON.stringify({ url: session.url, password: session.password }).replace(/</g, '\\u003c');
  return `<!doctype html>
<html><head><meta charset="utf-8"><title>hostctl console</title>
<style>html,body{margin:0;height:100%;background:#222;color:#ddd;font:14px sans-serif}#status{padding:4px 8px}#screen{height:calc(100% - 26px)}</style>
</head><body><div id="status">Connecting...</div><div id="screen"></div>
<script type="module">
import RFB from ${JSON.stringify(rfbModule)};
const { url, password } = ${config};
const status = document.getElementById('status');
const rfb = new RFB(document.getElementById('screen'), url, { credentials: { password } });
rfb.scaleViewport = true;
rfb.addEventListener('connect', () => (status.textContent = 'Connected'));
rfb.addEventListener('disconnect', (e) => (status.textContent = e.detail.clean ? 'Disconnected' : 'Connection lost'));
rfb.addEventListener('securityfailure', (e) => (status.textContent = 'Authentication failed: ' + (e.detail.reason || '')));
</script></body></html>`;
}
