import { ComputeProviderError } from '../compute-provider';
import { ACTION_TYPES, ActionType } from '../../vps.types';

/** What the runner keeps as the task handle of a libvirt power action (its calls are synchronous). */
export interface PowerTask {
  type: ActionType;
  /** When the action was sent: the stop timeout counts from here. */
  since: number;
  /** For a reboot: the QEMU process that has to go (a new id means the guest was started again). */
  domainId: string | null;
}

export function encodeTask(task: PowerTask): string {
  return `${task.type}:${task.since}:${task.domainId ?? '-'}`;
}

export function decodeTask(taskId: string): PowerTask {
  const [type, since, domainId] = taskId.split(':');
  if (!(ACTION_TYPES as readonly string[]).includes(type) || !/^\d+$/.test(since)) {
    throw new ComputeProviderError('task_not_found', 'The hypervisor has no record of this task.');
  }
  return { type: type as ActionType, since: Number(since), domainId: domainId && domainId !== '-' ? domainId : null };
}
