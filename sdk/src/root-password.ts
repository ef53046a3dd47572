import type { HostingClient } from './client';
import { unwrap } from './errors';

/**
 * Sets a new root password in a running VPS through its QEMU guest agent
 * (`POST /api/services/{id}/instance/reset-password`) and returns it: the API shows it this once.
 * Throws `HostingApiError` (409 `invalid_state` for a stopped VPS, 409 `guest_agent_unavailable`
 * when the guest's agent does not answer).
 *
 *     const password = await resetRootPassword(client, id);
 */
export async function resetRootPassword(client: HostingClient, serviceId: string, signal?: AbortSignal): Promise<string> {
  const body = await unwrap(client.POST('/api/services/{id}/instance/reset-password', { params: { path: { id: serviceId } }, signal }));
  return body.rootPassword;
}
