import { type InstanceAction, waitForAction } from '@hosting-account/sdk';
import type { ToolContext } from './tool';

/**
 * Waits for a VPS action to finish, telling the client how it goes with `notifications/progress`
 * when the call carried a progress token (one each poll: the action has no percentage, so progress
 * counts up and the message says how long it has run). Cancelling the call stops the wait, not the action.
 */
export async function waitWithProgress(action: InstanceAction, timeoutSeconds: number, { api, extra, pollMs }: ToolContext) {
  const token = extra._meta?.progressToken;
  const started = Date.now();
  let progress = 0;
  const report = (message: string) =>
    token === undefined
      ? Promise.resolve()
      : extra
          .sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: ++progress, message } })
          .catch(() => undefined);
  const label = `${action.type} of ${action.serviceId}`;
  await report(`${label}: running`);
  const ticker = setInterval(() => void report(`${label}: running for ${Math.round((Date.now() - started) / 1000)} s`), pollMs);
  try {
    const done: InstanceAction = await waitForAction(api, action.serviceId, action.id, {
      timeoutMs: timeoutSeconds * 1000,
      intervalMs: pollMs,
      signal: extra.signal,
    });
    await report(`${label}: ${done.status}`);
    return done;
  } finally {
    clearInterval(ticker);
  }
}
