import { HostingClient, Schemas, VolumeAction, waitForAction, waitForVolumeAction } from '@hosting-account/sdk';
import { progressLine } from './progress';

export type Action = Schemas['InstanceActionResponse'];

export class ActionFailedError extends Error {
  readonly failureCode = 'action_failed';

  constructor(readonly action: Pick<Action | VolumeAction, 'type' | 'serviceId' | 'error'>) {
    super(`${action.type} of ${action.serviceId} failed: ${action.error?.code ?? 'unknown'}: ${action.error?.message ?? ''}`);
  }
}

/** Waits for a VPS action, with a progress line on a terminal. */
export async function waitWithProgress(api: HostingClient, action: Action, timeoutSeconds: number): Promise<Action> {
  const progress = progressLine(`${action.type} of ${action.serviceId}`);
  try {
    return await waitForAction(api, action.serviceId, action.id, { timeoutMs: timeoutSeconds * 1000, intervalMs: 500 });
  } finally {
    progress.stop();
  }
}

/** Waits for a volume's attach, detach or resize, with a progress line on a terminal. */
export async function waitForVolumeWithProgress(api: HostingClient, action: VolumeAction, timeoutSeconds: number): Promise<VolumeAction> {
  const progress = progressLine(`${action.type} of volume ${action.serviceId}`);
  try {
    return await waitForVolumeAction(api, action.serviceId, action, { timeoutMs: timeoutSeconds * 1000, intervalMs: 500 });
  } finally {
    progress.stop();
  }
}
