import { Problem, problemFor } from '@app/core';
import { ComputeProviderError } from './compute/compute-provider';
import { RelocationError } from './fleet/relocation/relocation-error';

/**
 * How the VPS area's errors read at the edge (ProblemFilter, the operator's command line); loaded
 * with the area (index.ts). A provider's refusal is a 409, a hypervisor out of reach a 503.
 */
problemFor(ComputeProviderError, (err) => {
  if (err.retryable) return new Problem(503, 'hypervisor_unavailable', 'The hypervisor cannot be reached; try again shortly.');
  if (err.code === 'not_found') return Problem.conflict('invalid_state', 'The machine does not exist on the hypervisor.');
  return Problem.conflict('invalid_state', err.message);
});

/** A relocation that did not happen, as `service:move`, `host:drain` and `host:evacuate` print it. */
problemFor(RelocationError, (err) => {
  if (err.code === 'not_found') return new Problem(404, 'not_found', err.message);
  return Problem.conflict(err.code === 'no_capacity' ? 'no_capacity' : 'invalid_state', err.message);
});
