import { Problem } from '@app/core';
import { ComputeProviderError } from './compute-provider';

/** A provider's refusal as the API (or the operator's command line) reports it; other errors pass through. */
export function computeProblem(err: unknown, notFound = 'The machine does not exist on the hypervisor.'): unknown {
  if (!(err instanceof ComputeProviderError)) return err;
  if (err.retryable) return new Problem(503, 'hypervisor_unavailable', 'The hypervisor cannot be reached; try again shortly.');
  if (err.code === 'not_found') return Problem.conflict('invalid_state', notFound);
  return Problem.conflict('invalid_state', err.message);
}
