import type { Problem } from '../errors/problem';

export type CliArgs = Record<string, string | boolean | undefined>;

/**
 * An operator command for `npm run cli -- <name> --option value`. Areas provide subclasses in
 * their modules; the CLI discovers them. `run` returns what is printed as JSON lines on stdout.
 */
export abstract class CliCommand {
  abstract readonly name: string;
  abstract readonly usage: string;
  /** Option names that take a value. */
  abstract readonly options: readonly string[];
  /** Boolean options (`--no-wait`): present or not. */
  readonly flags: readonly string[] = [];
  /**
   * May run inside the API server that owns the embedded database, when the CLI cannot open it
   * (apps/api/src/operator-socket). Such a command reads no file by a relative path: the server's
   * working directory is not the operator's.
   */
  readonly runsInServer: boolean = false;
  abstract run(args: CliArgs): Promise<unknown[]>;
}

export class CliUsageError extends Error {}

export function requireArg(args: CliArgs, name: string): string {
  const value = args[name];
  if (typeof value !== 'string' || !value) throw new CliUsageError(`--${name} is required`);
  return value;
}

/** A command that did part of its work (a drain or an evacuation that left some VPSes): its lines are printed, then it exits as `problem` does. */
export class CliPartialFailure extends Error {
  constructor(
    readonly lines: unknown[],
    readonly problem: Problem,
  ) {
    super(problem.detail);
  }
}
