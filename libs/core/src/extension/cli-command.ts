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
  abstract run(args: CliArgs): Promise<unknown[]>;
}

export class CliUsageError extends Error {}

/** Some of what a command did failed: its lines are printed all the same, the message goes to stderr, and it exits 1. */
export class CliPartialFailure extends Error {
  constructor(
    readonly lines: unknown[],
    message: string,
  ) {
    super(message);
  }
}

export function requireArg(args: CliArgs, name: string): string {
  const value = args[name];
  if (typeof value !== 'string' || !value) throw new CliUsageError(`--${name} is required`);
  return value;
}
