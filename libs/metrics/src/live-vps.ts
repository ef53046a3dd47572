import { Problem } from '@app/core';
import { isVps, notAVps, type VpsState } from '@app/vps';

/** The caller's VPS, not terminated: graphs and alerts answer the same 404 for another account's, a missing, a terminated one or a service that is not a VPS. */
export function liveVps(state: VpsState | null): VpsState {
  if (!state || state.status === 'terminated') throw Problem.notFound('Service');
  if (!isVps(state)) throw notAVps();
  return state;
}
