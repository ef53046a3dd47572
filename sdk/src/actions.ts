import type { HostingClient } from './client';
import { unwrap } from './errors';
import { pollUntil, WaitOptions } from './poll';
import type { components } from './schema';

export type { WaitOptions } from './poll';

/** A VPS action: `{id, serviceId, type, status: running|succeeded|failed, startedAt, finishedAt, progress: 0-100, step, error}`. */
export type InstanceAction = components['schemas']['InstanceActionResponse'];

/** The action was still running when `waitForAction` gave up; `action` is its last known state. */
export class ActionTimeoutError extends Error {
  override readonly name = 'ActionTimeoutError';
  constructor(
    readonly action: InstanceAction,
    timeoutMs: number,
  ) {
    super(`Action ${action.id} (${action.type} of service ${action.serviceId}) still running after ${timeoutMs} ms`);
  }
}

/**
 * Polls `GET /api/services/{id}/instance/actions/{actionId}` until the action has finished and
 * returns it: check `status` (`succeeded` or `failed`, with `error` saying why). Throws
 * `ActionTimeoutError` after `timeoutMs`, `HostingApiError` for an error answer; a 429 is waited
 * out (`Retry-After`) rather than thrown.
 *
 *     const { data: stop } = await client.POST('/api/services/{id}/instance/stop', { params: { path: { id } } });
 *     const done = await waitForAction(client, id, stop!.id, { timeoutMs: 60_000 });
 */
export async function waitForAction(
  client: HostingClient,
  serviceId: string,
  actionId: string,
  options: WaitOptions<InstanceAction> = {},
): Promise<InstanceAction> {
  return pollUntil(
    (signal) =>
      unwrap(client.GET('/api/services/{id}/instance/actions/{actionId}', { params: { path: { id: serviceId, actionId } }, signal })),
    (action) => action.status !== 'running',
    (action, timeoutMs) => new ActionTimeoutError(action, timeoutMs),
    options,
  );
}
