import { ChildProcess, spawn } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { createServer } from 'node:net';
import { SERVER } from './run-cli';
import { testEnv } from './test-env';

export interface ServerProcess {
  url: string;
  child: ChildProcess;
  output: () => string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * Below the guests' SSH forwards (NETWORK_SSH_PORTS, 22000-28999 in the tests) and libvirtd's 16509,
 * and above 10080, the last of the ports browsers and Node's fetch refuse ("bad port").
 */
export const PICKED_PORTS = { low: 10_100, high: 16_000 };
const handedOut = new Set<number>();

/**
 * A loopback port nothing listens on, picked below Linux's ephemeral range (32768-60999). A port
 * the kernel hands out for `listen(0)` or an outgoing connection is never one of these, so a
 * process beside ours that asks the kernel (the benchmark beside the soak in CI) cannot take the
 * port between this probe and our server's listen.
 */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = PICKED_PORTS.low + randomInt(PICKED_PORTS.high - PICKED_PORTS.low);
    if (handedOut.has(port) || !(await tcpFree(port))) continue;
    handedOut.add(port);
    return port;
  }
  throw new Error(`no free port between ${PICKED_PORTS.low} and ${PICKED_PORTS.high} on 127.0.0.1`);
}

export function tcpFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** The built server (`dist/`) as a separate process, as production runs it. */
export async function startServerProcess(
  env: Record<string, string | undefined>,
  options: { startTimeoutMs?: number } = {},
): Promise<ServerProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, [SERVER], {
    env: { PATH: process.env.PATH, ...testEnv({ PORT: String(port), LOG_LEVEL: 'info', ...env }) } as NodeJS.ProcessEnv,
  });
  let out = '';
  child.stdout!.on('data', (chunk) => (out += chunk));
  child.stderr!.on('data', (chunk) => (out += chunk));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      // Not left running: jest would wait for it after the test failed.
      child.kill('SIGKILL');
      reject(new Error(`server did not start: ${out}`));
    }, options.startTimeoutMs ?? 30_000);
    const check = () => {
      if (out.includes('API listening')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', check);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}: ${out}`));
    });
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    url: `http://127.0.0.1:${port}`,
    child,
    output: () => out,
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (child.exitCode === null) child.kill(signal);
      return exited;
    },
  };
}
