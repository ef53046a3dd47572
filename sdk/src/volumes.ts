import type { HostingClient } from './client';
import { unwrap } from './errors';
import { pollUntil, WaitOptions } from './poll';
import type { components } from './schema';

/** A volume's block device: `{sizeGb, region, state: detached|attaching|attached|detaching|resizing, attachedTo, device}`. */
export type Volume = components['schemas']['VolumeSummaryResponse'];
/** An attach, detach or resize: `{id, serviceId, type, status: running|succeeded|failed, vpsServiceId, sizeGb, startedAt, finishedAt, progress, step, error}`. */
export type VolumeAction = components['schemas']['VolumeActionResponse'];

/** The volume action was still running when `waitForVolumeAction` gave up; `action` is its last known state. */
export class VolumeActionTimeoutError extends Error {
  override readonly name = 'VolumeActionTimeoutError';
  constructor(
    readonly action: VolumeAction,
    timeoutMs: number,
  ) {
    super(`Volume action ${action.id} (${action.type} of volume ${action.serviceId}) still running after ${timeoutMs} ms`);
  }
}

/**
 * Polls `GET /api/services/{id}/volume/actions/{actionId}` until the action has finished and
 * returns it: check `status` (`succeeded`, or `failed` with `error` saying why; the volume is then
 * as it was before). `action` is its id or the action the POST answered; an action that has already
 * finished is returned as it is. Throws `VolumeActionTimeoutError` after `timeoutMs` (default 120 s),
 * `HostingApiError` for an error answer; a 429 is waited out (`Retry-After`) rather than thrown.
 *
 *     const attach = await unwrap(client.POST('/api/services/{id}/volume/attach', { params: { path: { id } }, body: { serviceId: vpsId } }));
 *     const done = await waitForVolumeAction(client, id, attach);
 */
export async function waitForVolumeAction(
  client: HostingClient,
  serviceId: string,
  action: string | VolumeAction,
  options: WaitOptions<VolumeAction> = {},
): Promise<VolumeAction> {
  if (typeof action !== 'string' && action.status !== 'running') return action;
  const actionId = typeof action === 'string' ? action : action.id;
  return pollUntil(
    (signal) =>
      unwrap(client.GET('/api/services/{id}/volume/actions/{actionId}', { params: { path: { id: serviceId, actionId } }, signal })),
    (polled) => polled.status !== 'running',
    (polled, timeoutMs) => new VolumeActionTimeoutError(polled, timeoutMs),
    options,
  );
}
