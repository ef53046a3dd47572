import type { InstanceRef } from '../compute-provider';
import type { DeploymentMarks } from './deployment-marks';
import type { LibvirtDomains } from './libvirt-domains';
import type { Virsh } from './virsh';

/** libvirt waits 5 s for a guest agent by default; a slow one, not a dead one, still answers in this. */
const AGENT_TIMEOUT_MS = 15_000;

/**
 * The guest agent's guest-set-user-password. The password is an argument of virsh (libvirt
 * has no other way in), so it is in the API host's process list for the call's duration; it is kept
 * out of every log line and error message (Virsh's `secrets`).
 */
export async function setGuestRootPassword(
  virsh: Virsh,
  domains: LibvirtDomains,
  marks: DeploymentMarks,
  instance: InstanceRef,
  password: string,
): Promise<void> {
  const name = domains.domainOf(instance);
  const uri = domains.uriOf(instance);
  await marks.refuseForeign(uri, name);
  await virsh.run(uri, ['set-user-password', name, 'root', password], { timeoutMs: AGENT_TIMEOUT_MS, secrets: [password] });
}
