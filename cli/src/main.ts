import { Command, CommanderError } from 'commander';
import { toYaml } from './yaml';
import { EXIT_OK, ExitWith } from './errors';
import { describeFailure, Failure } from './failure';
import { paint } from './output';
import { createProgram } from './program';
import { credentialSource } from './session';

/** Runs hostctl and returns its exit code: 0 ok, 1 an error answer of the API (or the network), 2 usage. */
export async function main(argv: string[]): Promise<number> {
  const asked = outputArgument(argv.slice(2));
  const program = createProgram({ structuredErrors: asked === 'json' || asked === 'yaml' });
  try {
    await program.parseAsync(argv);
    return EXIT_OK;
  } catch (error) {
    if (error instanceof CommanderError && error.exitCode === 0) return EXIT_OK; // help or version
    if (error instanceof ExitWith) return error.exitCode;
    const failure = describeFailure(error, { credentialSource: credentialSource() });
    const kind = structuredOutput(program, argv);
    if (kind) writeStructured(failure, kind);
    else if (!(error instanceof CommanderError)) writeText(failure); // commander printed its own
    return failure.exitCode;
  }
}

function writeText(failure: Failure): void {
  const label = paint('Error:', 'red', process.stderr);
  process.stderr.write(`${label} ${failure.detail}\n${failure.textLines.map((line) => `${line}\n`).join('')}`);
}

/** With `-o json` (or yaml) an error is one object on stderr, as the output format promises. */
function writeStructured(failure: Failure, kind: 'json' | 'yaml'): void {
  const body = { ...failure.extra, code: failure.code, status: failure.status, detail: failure.detail, exitCode: failure.exitCode };
  process.stderr.write(kind === 'yaml' ? toYaml(body) : `${JSON.stringify(body, null, 2)}\n`);
}

/**
 * The output format asked for: the parsed option when parsing got that far, else (an error of the
 * parse itself) the arguments as given.
 */
function structuredOutput(program: Command, argv: string[]): 'json' | 'yaml' | undefined {
  const given =
    program.getOptionValueSource('output') === 'cli' ? program.opts<{ output?: string }>().output : outputArgument(argv.slice(2));
  return given === 'json' || given === 'yaml' ? given : undefined;
}

/** The value of the last `-o` / `--output` among the arguments. */
export function outputArgument(args: string[]): string | undefined {
  let found: string | undefined;
  args.forEach((arg, i) => {
    if (arg === '-o' || arg === '--output') found = args[i + 1];
    else if (arg.startsWith('--output=')) found = arg.slice('--output='.length);
    else if (/^-o\w/.test(arg)) found = arg.slice(2);
  });
  return found;
}
