import { HostingClient, Schemas, waitForAction } from '@hosting-account/sdk';
import { progressLine } from './progress';

export type Action = Schemas['InstanceActionResponse'];

export class ActionFailedError extends Error {
  readonly failureCode = 'action_failed';

  constructor(readonly action: Action) {
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
