import { CommanderError } from 'commander';
import { ActionTimeoutError, HostingApiError } from '@hosting-account/sdk';
import { EXIT_API_ERROR, EXIT_OK, EXIT_USAGE, UsageError } from './errors';
import { paint } from './output';
import { createProgram } from './program';
import { ApiUnreachableError } from './unreachable';

/** Runs hostctl and returns its exit code: 0 ok, 1 an error answer of the API (or the network), 2 usage. */
export async function main(argv: string[]): Promise<number> {
  try {
    await createProgram().parseAsync(argv);
    return EXIT_OK;
  } catch (error) {
    return report(error);
  }
}

function report(error: unknown): number {
  const label = paint('Error:', 'red', process.stderr);
  if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT_OK : EXIT_USAGE; // commander printed it
  if (error instanceof UsageError) {
    process.stderr.write(`${label} ${error.message}\n`);
    return EXIT_USAGE;
  }
  if (error instanceof HostingApiError) {
    const fields = (error.problem.errors ?? []).map((e) => `\n  ${e.field}: ${e.message}`).join('');
    process.stderr.write(
      `${label} ${error.problem.detail}${fields}\n  status: ${error.status}\n  code: ${error.code}\n  request id: ${error.requestId ?? '-'}\n`,
    );
    return EXIT_API_ERROR;
  }
  if (error instanceof ApiUnreachableError) {
    process.stderr.write(`${label} ${error.message}\n${error.hint}\n`);
    return EXIT_API_ERROR;
  }
  if (error instanceof ActionTimeoutError) {
    process.stderr.write(`${label} ${error.message}\n`);
    return EXIT_API_ERROR;
  }
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`${label} ${message}${cause?.code ? ` (${cause.code})` : cause?.message ? ` (${cause.message})` : ''}\n`);
  return EXIT_API_ERROR;
}
