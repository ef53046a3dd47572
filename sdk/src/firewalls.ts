import type { HostingClient } from './client';
import { unwrap } from './errors';
import { pollUntil, WaitOptions } from './poll';
import type { components } from './schema';

/** A cloud firewall: `{id, name, rules, appliedTo: [{serviceId, status: pending|applied|failed}], createdAt, updatedAt}`. */
export type Firewall = components['schemas']['FirewallResponse'];
/** A rule as sent: `{direction: in|out, protocol: tcp|udp|icmp, port?, addresses, description?}`. */
export type FirewallRule = components['schemas']['FirewallRuleRequest'];
/** Where a firewall is applied: a VPS and whether its hypervisor enforces the current rules yet. */
export type FirewallAttachment = components['schemas']['FirewallAttachmentResponse'];

export interface FirewallWaitOptions extends WaitOptions {
  /** Wait for these VPSes only (e.g. the ones just applied to); all the firewall is applied to by default. */
  serviceIds?: string[];
}

/** The attachments of `firewall` (among `serviceIds`, when given) whose VPS does not enforce its current rules yet. */
export function unenforcedAttachments(firewall: Firewall, serviceIds?: string[]): FirewallAttachment[] {
  const wanted = serviceIds && new Set(serviceIds);
  return firewall.appliedTo.filter((a) => a.status !== 'applied' && (!wanted || wanted.has(a.serviceId)));
}

/** Some VPS did not enforce the firewall when `waitForFirewall` gave up; `firewall` is its last known state. */
export class FirewallTimeoutError extends Error {
  override readonly name = 'FirewallTimeoutError';
  constructor(
    readonly firewall: Firewall,
    readonly waitingFor: FirewallAttachment[],
    timeoutMs: number,
  ) {
    const which = waitingFor.map((a) => `${a.serviceId} (${a.status === 'failed' ? 'failed, retried' : a.status})`).join(', ');
    super(`Firewall ${firewall.id} (${firewall.name}) not enforced after ${timeoutMs} ms on ${which}`);
  }
}

/**
 * Polls `GET /api/firewalls/{id}` until every VPS the firewall is applied to (or each of
 * `serviceIds`) enforces its current rules (`status: 'applied'`), and returns the firewall. After
 * `POST .../apply` or a `PATCH` of the rules, attachments are `pending` for a few seconds. `failed`
 * is waited through: the API retries it. A VPS no longer in `appliedTo` (removed meanwhile) is not
 * waited for. Throws `FirewallTimeoutError` after `timeoutMs` (default 120 s), `HostingApiError`
 * for an error answer; a 429 is waited out.
 *
 *     await unwrap(client.POST('/api/firewalls/{id}/apply', { params: { path: { id } }, body: { serviceIds: [vpsId] } }));
 *     const firewall = await waitForFirewall(client, id, { serviceIds: [vpsId] });
 */
export async function waitForFirewall(client: HostingClient, firewallId: string, options: FirewallWaitOptions = {}): Promise<Firewall> {
  const { serviceIds, ...wait } = options;
  return pollUntil(
    (signal) => unwrap(client.GET('/api/firewalls/{id}', { params: { path: { id: firewallId } }, signal })),
    (firewall) => unenforcedAttachments(firewall, serviceIds).length === 0,
    (firewall, timeoutMs) => new FirewallTimeoutError(firewall, unenforcedAttachments(firewall, serviceIds), timeoutMs),
    wait,
  );
}
