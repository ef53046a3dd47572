import { ComputeProviderError } from '../../compute/compute-provider';

/**
 * Why a relocation did not happen, with a code the operator's commands print
 * (`no_capacity`, `invalid_state`, `backup_unavailable`, ...). The job tries one again.
 */
export class RelocationError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** A relocation refused, or a step that trying again cannot change (no room, a VPS in the wrong state, a backup gone): never retried. */
export class RelocationRefused extends RelocationError {
  /** The VPS or host named does not exist (the commands answer `not_found`). */
  static notFound(what: 'Host' | 'Service'): RelocationRefused {
    return new RelocationRefused('not_found', `${what} not found.`);
  }
}

/** Whether the job tries a failed step again: a refusal never, the compute port's error as it says, anything else (a lost connection) yes. */
export function retryable(err: unknown): boolean {
  if (err instanceof RelocationRefused) return false;
  if (err instanceof ComputeProviderError) return err.retryable;
  return true;
}

/** The code and message a failed step is recorded with (`fallback`: the code of an error that has none). */
export function failureOf(err: unknown, fallback: string): { code: string; message: string } {
  if (err instanceof RelocationError || err instanceof ComputeProviderError) return { code: err.code, message: err.message };
  return { code: fallback, message: (err as Error).message };
}
