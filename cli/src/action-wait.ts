import { HostingClient, Schemas, VolumeAction, waitForAction, waitForVolumeAction } from '@hosting-account/sdk';
import { progressLine } from './progress';

export type Action = Schemas['InstanceActionResponse'];

export class ActionFailedError extends Error {
  readonly failureCode = 'action_failed';

  constructor(readonly action: Pick<Action | VolumeAction, 'type' | 'serviceId' | 'error'>) {
    super(`${action.type} of ${action.serviceId} failed: ${action.error?.code ?? 'unknown'}: ${action.error?.message ?? ''}`);
  }
}

/** How far an action is, as the progress line and a running action's message show it: `40% copying the disk`. */
export function whereActionIs(action: Pick<Action | VolumeAction, 'progress' | 'step'>): string {
  return action.step ? `${action.progress}% ${action.step}` : `${action.progress}%`;
}

/** An action's status as a table prints it: `running (40% copying the disk)` while it runs, else `succeeded` or `failed`. */
export function statusOf(action: Pick<Action | VolumeAction, 'status' | 'progress' | 'step'>): string {
  return action.status === 'running' ? `running (${whereActionIs(action)})` : action.status;
}

/** Waits for a VPS action, with a progress line on a terminal (its progress and step as they change). */
export async function waitWithProgress(api: HostingClient, action: Action, timeoutSeconds: number): Promise<Action> {
  const progress = progressLine(`${action.type} of ${action.serviceId}`);
  const onPoll = (polled: Action) => progress.status(whereActionIs(polled));
  try {
    return await waitForAction(api, action.serviceId, action.id, { timeoutMs: timeoutSeconds * 1000, intervalMs: 500, onPoll });
  } finally {
    progress.stop();
  }
}

/** Waits for a volume's attach, detach or resize, with a progress line on a terminal. */
export async function waitForVolumeWithProgress(api: HostingClient, action: VolumeAction, timeoutSeconds: number): Promise<VolumeAction> {
  const progress = progressLine(`${action.type} of volume ${action.serviceId}`);
  const onPoll = (polled: VolumeAction) => progress.status(whereActionIs(polled));
  try {
    return await waitForVolumeAction(api, action.serviceId, action, { timeoutMs: timeoutSeconds * 1000, intervalMs: 500, onPoll });
  } finally {
    progress.stop();
  }
}
