import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createConnection, createServer, Server, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, BrowserContext } from 'playwright-core';

/** Debian's Chromium (`apt-get install chromium`); never a downloaded browser. */
export const CHROMIUM = '/usr/bin/chromium';

export const chromiumInstalled = (): boolean => existsSync(CHROMIUM);

/**
 * Browser tests run where Chromium is installed, and always in CI (`CI` set), where a missing
 * browser is a failure rather than a skip.
 */
export function browserTestsEnabled(): boolean {
  if (chromiumInstalled() || process.env.CI) return true;
  process.stderr.write(
    `Skipping browser tests: ${CHROMIUM} is missing (apt-get install chromium). In CI (CI set) they run and fail instead.\n`,
  );
  return false;
}

export interface HeadlessChromium {
  context: BrowserContext;
  close(): Promise<void>;
}

/** Headless Debian Chromium with a fresh profile, no background traffic; `javaScriptEnabled: false` for pages that must work without. */
export async function launchChromium(options: { javaScriptEnabled?: boolean } = {}): Promise<HeadlessChromium> {
  if (!chromiumInstalled()) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium`);
  const profile = mkdtempSync(join(tmpdir(), 'chromium-profile-'));
  try {
    // launchPersistentContext owns --user-data-dir: a fresh directory per launch, removed on close.
    const context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-quic',
        '--no-first-run',
        '--disable-component-update',
        '--disable-sync',
      ],
      timeout: 60_000,
      javaScriptEnabled: options.javaScriptEnabled ?? true,
    });
    return {
      context,
      async close() {
        await context.close().catch(() => undefined);
        rmSync(profile, { recursive: true, force: true });
      },
    };
  } catch (err) {
    rmSync(profile, { recursive: true, force: true });
    throw err;
  }
}

export interface TcpProxy {
  port: number;
  close(): Promise<void>;
}

/**
 * Forwards 127.0.0.1:`listenPort` to 127.0.0.1:`targetPort`, as a reverse proxy in front of the API
 * would: the browser then talks to the origin the document's `servers` names (PUBLIC_URL).
 */
export function tcpProxy(listenPort: number, targetPort: number): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = createConnection({ host: '127.0.0.1', port: targetPort });
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream).pipe(client);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(listenPort, '127.0.0.1', () =>
      resolve({
        port: listenPort,
        close: () =>
          new Promise<void>((done) => {
            for (const socket of sockets) socket.destroy();
            server.close(() => done());
          }),
      }),
    );
  });
}
