import { ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { SERVER } from './run-cli';
import { testEnv } from './test-env';

export interface ServerProcess {
  url: string;
  child: ChildProcess;
  output: () => string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on('error', reject);
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
