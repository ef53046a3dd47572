import type { GuestNetwork, GuestSeed } from '../compute-provider';

/** The three files of a NoCloud seed (an ISO 9660 volume labelled `cidata`). */
export interface SeedFiles {
  'meta-data': string;
  'user-data': string;
  'network-config': string;
}

/** JSON strings are YAML's double-quoted scalars: nothing a name or key holds can break out. */
const q = (value: string): string => JSON.stringify(value);

export function seedFiles(seed: GuestSeed, network: GuestNetwork | null): SeedFiles {
  const metaData = `instance-id: ${q(seed.instanceId)}\nlocal-hostname: ${q(seed.hostname)}\n`;
  // An empty list is not valid cloud-config: no keys, no line (the console still works).
  const keys = seed.sshKeys.map((key) => `  - ${q(key.trim())}`);
  // Root logs in with the account's keys, as at Hetzner, DigitalOcean and Linode; never with a password.
  const userData = [
    '#cloud-config',
    `hostname: ${q(seed.hostname)}`,
    'preserve_hostname: false',
    'disable_root: false',
    'ssh_pwauth: false',
    ...(keys.length ? ['ssh_authorized_keys:', ...keys] : []),
    '',
  ].join('\n');
  return { 'meta-data': metaData, 'user-data': userData, 'network-config': networkConfig(network) };
}

function networkConfig(network: GuestNetwork | null): string {
  const lines = ['version: 2', 'ethernets:', '  eth0:'];
  if (network) lines.push('    match:', `      macaddress: ${q(network.mac)}`, '    set-name: eth0');
  else lines.push('    match:', `      name: ${q('e*')}`);
  if (!network || network.mode === 'user') {
    lines.push('    dhcp4: true');
    return `${lines.join('\n')}\n`;
  }
  const addresses = [network.ipv4, network.ipv6].filter((a) => a !== null).map((a) => q(`${a.address}/${a.prefix}`));
  lines.push(`    addresses: [${addresses.join(', ')}]`, `    gateway4: ${q(network.ipv4.gateway)}`);
  if (network.ipv6) lines.push(`    gateway6: ${q(network.ipv6.gateway)}`);
  if (network.dns.length) lines.push('    nameservers:', `      addresses: [${network.dns.map(q).join(', ')}]`);
  return `${lines.join('\n')}\n`;
}
