import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { testEnv } from './test-env';

export const CLI = join(__dirname, '../../dist/apps/api/apps/api/src/cli.js');
export const SERVER = join(__dirname, '../../dist/apps/api/apps/api/src/main.js');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
  lines: any[];
}

export const linesOf = (stdout: string) =>
  stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));

/** Runs the built operator CLI (`npm test` builds first) with the test configuration. */
export function runCli(args: string[], env: Record<string, string | undefined> = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: { PATH: process.env.PATH, ...testEnv(env) } as NodeJS.ProcessEnv });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr, lines: linesOf(stdout) }));
  });
}
