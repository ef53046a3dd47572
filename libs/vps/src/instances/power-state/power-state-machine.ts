import type { ProblemCode } from '@app/core';
import type { ServiceStatus } from '@app/services';
import type { ActionType, PowerState } from '../../vps.types';

export interface InstanceSnapshot {
  serviceStatus: ServiceStatus;
  powerState: PowerState;
  /** Another action on this instance has not finished. */
  actionRunning: boolean;
}

export type ActionPlan =
  | { ok: true; transitional: PowerState; target: PowerState }
  | { ok: false; code: Extract<ProblemCode, 'invalid_state' | 'action_in_progress'>; detail: string };

const TRANSITIONS: Record<ActionType, { from: PowerState[]; transitional: PowerState; target: PowerState }> = {
  start: { from: ['stopped'], transitional: 'starting', target: 'running' },
  stop: { from: ['running'], transitional: 'stopping', target: 'stopped' },
  // A reboot passes through a boot: the instance is not usable (no console) until it is running again.
  reboot: { from: ['running'], transitional: 'starting', target: 'running' },
  // A rebuild wipes the disk whatever the machine is doing, and boots the new system.
  rebuild: { from: ['running', 'stopped'], transitional: 'starting', target: 'running' },
  // A snapshot copies the disk of a machine that stays as it is (live when running).
  snapshot: { from: ['running', 'stopped'], transitional: 'running', target: 'running' },
  // A restore replaces the disk with a backup's and boots it, like a rebuild; it also makes a vanished machine again.
  restore: { from: ['running', 'stopped', 'error'], transitional: 'starting', target: 'running' },
  // Both boot the machine (from the rescue system, or its own disk again) whatever it is doing.
  rescue: { from: ['running', 'stopped'], transitional: 'starting', target: 'running' },
  unrescue: { from: ['running', 'stopped'], transitional: 'starting', target: 'running' },
};

/** Actions that leave the machine in the state they found it in. */
const KEEPS_STATE: readonly ActionType[] = ['snapshot'];

export const isTransitional = (state: PowerState): boolean => state === 'starting' || state === 'stopping';

/** A machine that is up or down and nothing is changing it (not being made, not in error). */
export const isSettled = (state: PowerState): boolean => state === 'running' || state === 'stopped';

/** Power state at the end of a successful action begun from `from`. */
export const targetOf = (type: ActionType, from: PowerState): PowerState => (KEEPS_STATE.includes(type) ? from : TRANSITIONS[type].target);

/**
 * Whether a power action may begin: the VPS must be active, idle (no other action, no transition)
 * and in the action's source state. Of a machine in error only a restore begins: it puts the
 * backup's disk back and defines the machine again where the hypervisor lost it.
 */
export function planAction(instance: InstanceSnapshot, type: ActionType): ActionPlan {
  if (instance.serviceStatus !== 'active') {
    return { ok: false, code: 'invalid_state', detail: `The service is ${instance.serviceStatus}; power actions need an active service.` };
  }
  if (instance.powerState === 'provisioning') {
    return { ok: false, code: 'action_in_progress', detail: 'The machine is still being set up; try again when it is running or stopped.' };
  }
  if (instance.powerState === 'error' && !TRANSITIONS[type].from.includes('error')) {
    return {
      ok: false,
      code: 'invalid_state',
      detail:
        'The machine could not be set up or is missing on the hypervisor; restore one of its backups, or open a support ticket for this service.',
    };
  }
  if (instance.actionRunning || isTransitional(instance.powerState)) {
    return {
      ok: false,
      code: 'action_in_progress',
      detail: `Another action on this instance is still running (it is ${instance.powerState}).`,
    };
  }
  const transition = TRANSITIONS[type];
  if (!transition.from.includes(instance.powerState)) {
    const detail =
      type === 'reboot' ? 'The instance is stopped; start it instead of rebooting.' : `The instance is already ${instance.powerState}.`;
    return { ok: false, code: 'invalid_state', detail };
  }
  if (KEEPS_STATE.includes(type)) return { ok: true, transitional: instance.powerState, target: instance.powerState };
  return { ok: true, transitional: transition.transitional, target: transition.target };
}
