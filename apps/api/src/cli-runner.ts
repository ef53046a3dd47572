import { parseArgs } from 'node:util';
import { INestApplicationContext } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import { asProblem, CliCommand, CliPartialFailure, CliUsageError, ConfigError, DataDirLockedError, operatorDetailOf } from '@app/core';

export const MIGRATION_RUN = 'migration:run';

/** Where a command writes: JSON lines to `out`, messages to `err`. */
export interface CliOutput {
  out(text: string): void;
  err(text: string): void;
}

/** The operator commands the areas provide (found in the app's providers). */
export function cliCommandsOf(app: INestApplicationContext): CliCommand[] {
  return cliCommandsIn(app.get(DiscoveryService));
}

export function cliCommandsIn(discovery: DiscoveryService): CliCommand[] {
  return discovery
    .getProviders()
    .map((w) => w.instance as unknown)
    .filter((i): i is CliCommand => i instanceof CliCommand);
}

export function usage(commands: CliCommand[]): string {
  return ['Usage: npm run cli -- <command> [options]', '', 'Commands:', `  ${MIGRATION_RUN}`, ...commands.map((c) => `  ${c.usage}`)].join(
    '\n',
  );
}

/**
 * Runs one command with its options and returns the exit code: 0, 64 for a usage error, 65 for input
 * the rules refuse (a Problem), or when part of its work failed (CliPartialFailure: its lines are
 * printed first). Other errors are thrown.
 */
export async function runCommand(commands: CliCommand[], argv: string[], output: CliOutput): Promise<number> {
  const [name, ...rest] = argv;
  const command = commands.find((c) => c.name === name);
  if (!command) {
    output.err(`${name ? `Unknown command "${name}".\n\n` : ''}${usage(commands)}\n`);
    return 64;
  }
  try {
    const { values } = parseArgs({
      args: rest,
      options: {
        ...Object.fromEntries(command.options.map((o) => [o, { type: 'string' as const }])),
        ...Object.fromEntries(command.flags.map((f) => [f, { type: 'boolean' as const }])),
      },
      strict: true,
    });
    for (const line of await command.run(values)) output.out(JSON.stringify(line) + '\n');
    return 0;
  } catch (caught) {
    let err = caught;
    if (err instanceof CliPartialFailure) {
      for (const line of err.lines) output.out(JSON.stringify(line) + '\n');
      err = err.problem;
    }
    const failure = failureOf(err);
    if (!failure) throw err;
    output.err(`${failure.message}\n`);
    return failure.code;
  }
}

/** The exit code and message of an error the operator can act on; null for a bug. */
export function failureOf(err: unknown): { code: number; message: string } | null {
  if (err instanceof CliUsageError) return { code: 64, message: err.message };
  if (err instanceof ConfigError || err instanceof DataDirLockedError) return { code: 75, message: err.message };
  const problem = asProblem(err);
  if (problem) {
    const fields = problem.errors ? ` (${problem.errors.map((e) => `${e.field} ${e.message}`).join('; ')})` : '';
    // The hypervisor's own reason, which customers never see: the operator needs it to act.
    const said = operatorDetailOf(err);
    return { code: 65, message: `${problem.code}: ${problem.detail}${fields}${said ? `\nhypervisor said: ${said}` : ''}` };
  }
  // parseArgs's errors (by code: a TypeError of another realm under Jest is no instanceof TypeError here).
  const parseError = err as { code?: unknown; message?: string } | null;
  if (typeof parseError?.code === 'string' && parseError.code.startsWith('ERR_PARSE_ARGS'))
    return { code: 64, message: String(parseError.message) };
  return null;
}
