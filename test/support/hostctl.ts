import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';

export const HOSTCTL = join(__dirname, '../../cli/bin/hostctl.js');

export interface HostctlRun {
  code: number | null;
  stdout: string;
  stderr: string;
  json: any;
}

export interface HostctlOptions {
  /** The customer's HOME; the config folder is `<home>/config`. */
  home: string;
  /** Over PATH, HOME and XDG_CONFIG_HOME; `undefined` leaves a variable out. */
  env?: Record<string, string | undefined>;
  input?: string;
  /** On a pseudo-terminal (util-linux `script`), where stdout and stderr both land in `stdout`. */
  tty?: boolean;
}

/** hostctl (cli/, built by `npm test`) as a customer runs it: a child process with its own HOME and config folder. */
export function startHostctl(args: string[], options: HostctlOptions): { child: ChildProcess; stdout: () => string; stderr: () => string } {
  const env = { PATH: process.env.PATH, HOME: options.home, XDG_CONFIG_HOME: join(options.home, 'config'), ...options.env };
  const argv = [process.execPath, HOSTCTL, ...args];
  const [file, ...rest] = options.tty ? ['script', '-qec', argv.map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' '), '/dev/null'] : argv;
  const child = spawn(file, rest, {
    env: Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined)) as NodeJS.ProcessEnv,
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  child.stdin.end(options.input ?? '');
  return { child, stdout: () => stdout, stderr: () => stderr };
}

/** Runs hostctl to its end. */
export function runHostctl(args: string[], options: HostctlOptions): Promise<HostctlRun> {
  return new Promise((resolve, reject) => {
    const run = startHostctl(args, options);
    run.child.on('error', reject);
    run.child.on('close', (code) => {
      let json: any;
      try {
        json = JSON.parse(run.stdout());
      } catch {
        json = undefined;
      }
      resolve({ code, stdout: run.stdout(), stderr: run.stderr(), json });
    });
  });
}
