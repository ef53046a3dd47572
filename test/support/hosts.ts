/**
 * The app's settings for the libvirt adapter, on qemu:///system unless `more` names a LIBVIRT_URI.
 * The account's access token lasts three hours: a file that boots guests under TCG on a
 * slow machine outlives the 15 minutes of the default (CI's local-pool file took 950 s, and every
 * request after the 900th second answered 401).
 */
export function libvirtCompute(more: Record<string, string> = {}): Record<string, string> {
  return { COMPUTE_PROVIDER: 'libvirt', ACCESS_TOKEN_TTL_SECONDS: String(3 * 3600), ...more };
}

/**
 * For guests that boot the Debian test image: a minute to shut down under TCG, and SSH ports of the
 * suite's own, not those of the other libvirt suites, which may run beside it on another database.
 */
export function guestCompute(sshPorts: string, more: Record<string, string> = {}): Record<string, string> {
  return libvirtCompute({ COMPUTE_STOP_TIMEOUT_SECONDS: '60', NETWORK_SSH_PORTS: sshPorts, ...more });
}

/** On a libvirtd of the test's own (own-libvirtd.ts) at `uri`, with domains made from `template`. */
export function ownLibvirtdCompute(uri: string, template: string, more: Record<string, string> = {}): Record<string, string> {
  return libvirtCompute({ LIBVIRT_URI: uri, LIBVIRT_DOMAIN_TEMPLATE: template, ...more });
}

export interface HostSize {
  vcpus: number;
  memoryGb: number;
  diskGb: number;
}

/** The operator's `host:add` of host `name` in `region` at `uri` with this capacity, then `more` (e.g. --vnc-listen). */
export function hostAddArgs(name: string, region: string, uri: string, size: HostSize, ...more: string[]): string[] {
  const sized = ['--vcpus', String(size.vcpus), '--memory-gb', String(size.memoryGb), '--disk-gb', String(size.diskGb)];
  return ['host:add', '--name', name, '--region', region, '--uri', uri, ...sized, ...more];
}

/** The operator's `service:provision` of one vps-xs of `image` in `region` for the account of `email`, then `more`. */
export function provisionArgs(email: string, region: string, image: string, ...more: string[]): string[] {
  return ['service:provision', '--email', email, '--type', 'vps', '--product', 'vps-xs', '--region', region, '--image', image, ...more];
}

/** The URI of a host that does not exist (.invalid): on the simulator a host is a row, no hypervisor behind it. */
export const invalidHostUri = (name: string): string => `qemu+ssh://root@${name}.invalid/system`;
