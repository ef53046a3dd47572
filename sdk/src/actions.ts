import type { HostingClient } from './client';
import { HostingApiError, unwrap } from './errors';
import type { components } from './schema';
import { sleep } from './sleep';

/** A VPS power action: `{id, serviceId, type, status: running|succeeded|failed, startedAt, finishedAt, error}`. */
export type InstanceAction = components['schemas']['InstanceActionResponse'];

export interface WaitOptions {
  /** Give up after this long (default 120 s). */
  timeoutMs?: number;
  /** Time between polls (default 1 s). */
  intervalMs?: number;
  /** Stops waiting when aborted. */
  signal?: AbortSignal;
}

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
  options: WaitOptions = {},
): Promise<InstanceAction> {
  const { timeoutMs = 120_000, intervalMs = 1_000, signal } = options;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    signal?.throwIfAborted();
    let wait = intervalMs;
    try {
      const action = await unwrap(
        client.GET('/api/services/{id}/instance/actions/{actionId}', { params: { path: { id: serviceId, actionId } }, signal }),
      );
      if (action.status !== 'running') return action;
      if (Date.now() + wait > deadline) throw new ActionTimeoutError(action, timeoutMs);
    } catch (err) {
      if (!(err instanceof HostingApiError && err.status === 429) || Date.now() > deadline) throw err;
      wait = Math.max(intervalMs, (err.retryAfterSeconds ?? 1) * 1000);
    }
    await sleep(Math.min(wait, Math.max(0, deadline - Date.now())), signal);
  }
}
