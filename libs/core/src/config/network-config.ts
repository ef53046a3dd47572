import { isIP } from 'node:net';
import type { Ipv4Pool, Ipv6Pool, NetworkConfig } from './vps-settings';
import type { EnvReader } from './env-reader';

export const ipv4ToNumber = (address: string): number => address.split('.').reduce((n, part) => n * 256 + Number(part), 0);
export const numberToIpv4 = (n: number): string => [24, 16, 8, 0].map((shift) => Math.floor(n / 2 ** shift) % 256).join('.');

/** `203.0.113.0/24` or `203.0.113.0/24@203.0.113.254` (the gateway; default the first address). */
function ipv4Pool(entry: string): Ipv4Pool | null {
  const match = /^(\d+\.\d+\.\d+\.\d+)\/(\d+)(?:@(\d+\.\d+\.\d+\.\d+))?$/.exec(entry);
  if (!match || isIP(match[1]) !== 4 || (match[3] && isIP(match[3]) !== 4)) return null;
  const prefix = Number(match[2]);
  if (prefix < 8 || prefix > 30) return null;
  const size = 2 ** (32 - prefix);
  const network = Math.floor(ipv4ToNumber(match[1]) / size) * size;
  const gateway = match[3] ?? numberToIpv4(network + 1);
  const gw = ipv4ToNumber(gateway);
  if (gw <= network || gw >= network + size - 1) return null;
  // Handed out: every host address but the gateway (skipped when allocating).
  return { cidr: `${numberToIpv4(network)}/${prefix}`, prefix, gateway, first: network + 1, last: network + size - 2 };
}

/** `2001:db8:10:20::/64`, optionally `@gateway` (default `<prefix>::1`). */
function ipv6Pool(entry: string): Ipv6Pool | null {
  const [cidr, gatewayPart] = entry.split('@');
  const [address, bits] = cidr.split('/');
  if (bits !== '64' || isIP(address) !== 6 || (gatewayPart && isIP(gatewayPart) !== 6)) return null;
  const groups = expandIpv6(address).slice(0, 4);
  const prefix64 = groups.map((g) => g.replace(/^0+(?=.)/, '')).join(':');
  return { cidr: `${canonicalIpv6(`${prefix64}::`)}/64`, prefix64, gateway: canonicalIpv6(gatewayPart ?? `${prefix64}::1`) };
}

/**
 * An IPv6 address in its one text form (RFC 5952: lower case, no leading zeros, the longest run
 * of two or more zero groups as `::`), as the WHATWG URL parser writes a host: `2001:db8:0:0::1`
 * and `2001:DB8::0001` are both `2001:db8::1`.
 */
export function canonicalIpv6(address: string): string {
  return new URL(`http://[${address}]/`).hostname.slice(1, -1);
}

function expandIpv6(address: string): string[] {
  const [head, tail] = address.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const middle = Array.from({ length: 8 - left.length - right.length }, () => '0');
  return [...left, ...(address.includes('::') ? middle : []), ...right].map((g) => g.padStart(4, '0'));
}

export function networkConfig(env: EnvReader): NetworkConfig {
  const mode = env.oneOf('NETWORK_MODE', ['user', 'bridge'] as const, 'user');
  const sshListen = env.string('NETWORK_SSH_LISTEN', '127.0.0.1')!;
  if (isIP(sshListen) === 0) env.problems.push(`NETWORK_SSH_LISTEN must be an IP address (got "${sshListen}")`);
  const portsRaw = env.string('NETWORK_SSH_PORTS', '22000-22999')!;
  const ports = /^(\d+)-(\d+)$/.exec(portsRaw);
  const sshPorts = ports ? { from: Number(ports[1]), to: Number(ports[2]) } : { from: 22000, to: 22999 };
  if (!ports || sshPorts.from < 1024 || sshPorts.to > 65535 || sshPorts.from > sshPorts.to) {
    env.problems.push(`NETWORK_SSH_PORTS must be a port range such as 22000-22999 within 1024-65535 (got "${portsRaw}")`);
  }
  const ipv4Pools: Ipv4Pool[] = [];
  for (const entry of split(env.string('NETWORK_IPV4_POOL', ''))) {
    const pool = ipv4Pool(entry);
    if (pool) ipv4Pools.push(pool);
    else env.problems.push(`NETWORK_IPV4_POOL must be IPv4 CIDRs (/8 to /30), each optionally @gateway, comma-separated (got "${entry}")`);
  }
  const v6 = env.string('NETWORK_IPV6_POOL');
  const ipv6 = v6 === undefined ? undefined : ipv6Pool(v6);
  if (ipv6 === null) env.problems.push(`NETWORK_IPV6_POOL must be one IPv6 /64, optionally @gateway (got "${v6}")`);
  const servers = split(env.string('NETWORK_DNS', ''));
  for (const server of servers) if (!isIP(server)) env.problems.push(`NETWORK_DNS must be IP addresses, comma-separated (got "${server}")`);
  const dns = servers.map((server) => (isIP(server) === 6 ? canonicalIpv6(server) : server));
  const bridge = env.string('NETWORK_BRIDGE', 'br0')!;
  if (!/^[A-Za-z0-9_.-]{1,15}$/.test(bridge)) env.problems.push(`NETWORK_BRIDGE must be an interface name (got "${bridge}")`);
  const firewallsPerAccount = env.int('FIREWALLS_PER_ACCOUNT', 50, 1, 10_000);
  const firewallRulesMax = env.int('FIREWALL_RULES_MAX', 50, 1, 500);
  return { mode, sshListen, sshPorts, bridge, ipv4Pools, ipv6Pool: ipv6 ?? undefined, dns, firewallsPerAccount, firewallRulesMax };
}

function split(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
}
