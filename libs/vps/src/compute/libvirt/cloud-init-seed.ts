import type { GuestNetwork, GuestSeed } from '../compute-provider';

/** The three files of a NoCloud seed (an ISO 9660 volume labelled `cidata`). */
export interface SeedFiles {
  'meta-data': string;
  'user-data': string;
  'network-config': string;
}

/**
 * A YAML double-quoted scalar of printable ASCII, every other character escaped, so nothing a name or
 * key holds can break out, and nothing makes cloud-init refuse the whole file (its reader refuses raw
 * C1 controls and U+FFFE, and folds a raw NEL). Above U+FFFF the escape is
 * `\UXXXXXXXX`: YAML has no surrogate pairs. A lone surrogate, which UTF-8 cannot carry, is U+FFFD,
 * as the database stores it.
 */
function q(value: string): string {
  let quoted = '';
  for (const char of value) {
    const code = char.codePointAt(0)!;
    if (code >= 0x20 && code < 0x7f) quoted += char === '"' || char === '\\' ? `\\${char}` : char;
    else if (code > 0xffff) quoted += `\\U${hex(code, 8)}`;
    else quoted += `\\u${hex(code >= 0xd800 && code <= 0xdfff ? 0xfffd : code, 4)}`;
  }
  return `"${quoted}"`;
}

const hex = (code: number, digits: number): string => code.toString(16).toUpperCase().padStart(digits, '0');

export function seedFiles(seed: GuestSeed, network: GuestNetwork | null): SeedFiles {
  const metaData = `instance-id: ${q(seed.instanceId)}\nlocal-hostname: ${q(seed.hostname)}\n`;
  // An empty list is not valid cloud-config: no keys, no line (the console still works).
  const keys = seed.sshKeys.map((key) => `  - ${q(key.trim())}`);
  // Root logs in with the account's keys, as at Hetzner, DigitalOcean and Linode; never with a password
  // over SSH. A rescue system also takes a password (its hash) for the console.
  const password = seed.rootPasswordHash
    ? ['chpasswd:', '  expire: false', '  users:', '    - name: root', `      password: ${q(seed.rootPasswordHash)}`, '      type: hash']
    : [];
  const userData = [
    '#cloud-config',
    `hostname: ${q(seed.hostname)}`,
    'preserve_hostname: false',
    'disable_root: false',
    'ssh_pwauth: false',
    ...(keys.length ? ['ssh_authorized_keys:', ...keys] : []),
    ...password,
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
