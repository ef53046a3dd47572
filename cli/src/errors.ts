/** A mistake in how hostctl was called (exit code 2), as opposed to an error answer of the API (1). */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** Something named on the command line that the account does not have (exit code 1, like the API's 404). */
export class NotFoundError extends Error {
  override readonly name = 'NotFoundError';
}

export const EXIT_OK = 0;
export const EXIT_API_ERROR = 1;
export const EXIT_USAGE = 2;

/** hostctl ends with this code and prints nothing more: what it ran (ssh) has said why. */
export class ExitWith extends Error {
  override readonly name = 'ExitWith';
  constructor(readonly exitCode: number) {
    super(`exit ${exitCode}`);
  }
}
