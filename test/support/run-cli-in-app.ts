import { INestApplicationContext } from '@nestjs/common';
import { cliCommandsOf, runCommand } from '../../apps/api/src/cli-runner';
import { CliResult, linesOf } from './run-cli';

/**
 * Runs an operator command inside a test app: the CLI's own runner (options, exit codes, messages)
 * without starting a process and an app for it. `runCli` keeps a few cases through the real process.
 */
export async function runCliIn(app: INestApplicationContext, args: string[]): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const code = await runCommand(cliCommandsOf(app), args, { out: (text) => (stdout += text), err: (text) => (stderr += text) });
  return { code, stdout, stderr, lines: linesOf(stdout) };
}
