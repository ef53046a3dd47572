import type { HostingClient } from './client';
import { unwrap } from './errors';
import type { components } from './schema';

export type RescueAction = components['schemas']['RescueActionResponse'];

/**
 * Boots a VPS into the rescue system with its own disk as `/dev/vdb`
 * (`POST /api/services/{id}/instance/rescue`): the action, root's password in the rescue system
 * (shown this once) and when the rescue ends by itself. `sshKeyIds` omitted: all of the account's keys.
 * Follow the action with `waitForAction`.
 *
 *     const { rootPassword, ...action } = await rescueInstance(client, id);
 */
export async function rescueInstance(
  client: HostingClient,
  serviceId: string,
  options: { sshKeyIds?: string[]; signal?: AbortSignal } = {},
): Promise<RescueAction> {
  const body = options.sshKeyIds ? { sshKeyIds: options.sshKeyIds } : {};
  return unwrap(client.POST('/api/services/{id}/instance/rescue', { params: { path: { id: serviceId } }, body, signal: options.signal }));
}

/** Ends a rescue: the VPS boots its own disk again (`POST /api/services/{id}/instance/unrescue`); returns the action. */
export async function unrescueInstance(
  client: HostingClient,
  serviceId: string,
  signal?: AbortSignal,
): Promise<components['schemas']['InstanceActionResponse']> {
  return unwrap(client.POST('/api/services/{id}/instance/unrescue', { params: { path: { id: serviceId } }, signal }));
}
