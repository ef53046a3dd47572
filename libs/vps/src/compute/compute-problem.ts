import { asProblem } from '@app/core';
import '../vps.problems';

/** For fleet/hosts.service.ts until its rewrite: the edge maps a ComputeProviderError itself (vps.problems.ts). */
export function computeProblem(err: unknown): unknown {
  return asProblem(err) ?? err;
}
