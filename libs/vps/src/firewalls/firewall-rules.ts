import { isIP } from 'node:net';
import { canonicalIpv6, FieldError, ipv4ToNumber, numberToIpv4, Problem } from '@app/core';
import type { GuestFirewallRule } from '../compute/guest-firewalls';

export const DIRECTIONS = ['in', 'out'] as const;
export const PROTOCOLS = ['tcp', 'udp', 'icmp'] as const;

/** A rule as the customer writes it and reads it back (addresses in canonical form). */
export interface FirewallRule {
  direction: (typeof DIRECTIONS)[number];
  protocol: (typeof PROTOCOLS)[number];
  /** `80` or `8000-8100`; absent for icmp, and for tcp/udp meaning every port. */
  port?: string;
  addresses: string[];
  description?: string;
}

/**
 * The rules, checked beyond their shape (the DTO's): ports and ranges in 1..65535, no port for
 * icmp, every address an IPv4 or IPv6 CIDR (a bare address is /32 or /128) whose host bits are
 * zero. Each refusal names its rule (`rules[2].addresses[0]`); all of them in one 400.
 */
export function checkRules(rules: FirewallRule[]): FirewallRule[] {
  const errors: FieldError[] = [];
  const checked = rules.map((rule, i) => {
    const at = `rules[${i}]`;
    const port = rule.port?.trim();
    if (port !== undefined && rule.protocol === 'icmp') errors.push({ field: `${at}.port`, message: 'icmp has no ports; leave port out' });
    else if (port !== undefined && !portRange(port))
      errors.push({ field: `${at}.port`, message: `"${rule.port}" is not a port (1-65535) or a range such as 8000-8100` });
    const addresses = rule.addresses.map((address, j) => {
      const cidr = canonicalCidr(address);
      if (typeof cidr !== 'string') errors.push({ field: `${at}.addresses[${j}]`, message: cidr.problem });
      return typeof cidr === 'string' ? cidr : address;
    });
    return {
      direction: rule.direction,
      protocol: rule.protocol,
      ...(port !== undefined && { port }),
      addresses: [...new Set(addresses)],
      ...(rule.description && { description: rule.description }),
    };
  });
  if (errors.length) throw Problem.invalidInput(errors.map((e) => `${e.field}: ${e.message}`).join('; '), errors);
  return checked;
}

/** What the hypervisor enforces of stored rules. */
export function guestRules(rules: FirewallRule[]): GuestFirewallRule[] {
  return rules.map((rule) => ({
    direction: rule.direction,
    protocol: rule.protocol,
    ports: rule.port === undefined ? null : portRange(rule.port),
    addresses: rule.addresses,
  }));
}

export function portRange(port: string): { from: number; to: number } | null {
  const match = /^(\d{1,5})(?:-(\d{1,5}))?$/.exec(port);
  if (!match) return null;
  const from = Number(match[1]);
  const to = Number(match[2] ?? match[1]);
  return from >= 1 && to <= 65535 && from <= to ? { from, to } : null;
}

/** `10.0.0.0/8`, `2001:db8::/32`; a bare address as a single host. */
export function canonicalCidr(value: string): string | { problem: string } {
  const [address, bits, extra] = value.trim().split('/');
  const version = isIP(address ?? '');
  if (extra !== undefined || version === 0 || (bits !== undefined && !/^\d{1,3}$/.test(bits)))
    return { problem: `"${value}" is not an IPv4 or IPv6 CIDR (such as 203.0.113.0/24 or 2001:db8::/32)` };
  const max = version === 4 ? 32 : 128;
  const prefix = bits === undefined ? max : Number(bits);
  if (prefix > max) return { problem: `"${value}": an IPv${version} prefix is at most /${max}` };
  const network = version === 4 ? ipv4Network(address, prefix) : ipv6Network(address, prefix);
  if (network !== (version === 4 ? address : canonicalIpv6(address)))
    return { problem: `"${value}" has host bits set; the network is ${network}/${prefix}` };
  return `${network}/${prefix}`;
}

function ipv4Network(address: string, prefix: number): string {
  const size = 2 ** (32 - prefix);
  return numberToIpv4(Math.floor(ipv4ToNumber(address) / size) * size);
}

function ipv6Network(address: string, prefix: number): string {
  const value = ipv6ToBigInt(address);
  const hostBits = BigInt(128 - prefix);
  const network = (value >> hostBits) << hostBits;
  const groups = Array.from({ length: 8 }, (_, i) => ((network >> BigInt(112 - 16 * i)) & 0xffffn).toString(16));
  return canonicalIpv6(groups.join(':'));
}

function ipv6ToBigInt(address: string): bigint {
  const full = canonicalIpv6(address);
  const [head, tail] = full.split('::');
  const left = head ? head.split(':') : [];
  const right = tail !== undefined && tail ? tail.split(':') : [];
  const groups = full.includes('::') ? [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right] : left;
  return groups.reduce((n, group) => (n << 16n) + BigInt(parseInt(group, 16)), 0n);
}
