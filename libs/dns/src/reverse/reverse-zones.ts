import { isIPv4 } from 'node:net';
import { ipv4ToNumber, type Ipv4Pool, type Ipv6Pool } from '@app/core';

/** Where an address's PTR lives: the reverse zone and the record's name, both absolute without the dot. */
export interface PtrPlace {
  zone: string;
  name: string;
}

const MAX_POOL_ZONES = 256;

function nibbles(address: string): string[] {
  const [head, tail = ''] = address.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = address.includes('::') ? [...left, ...Array(8 - left.length - right.length).fill('0'), ...right] : left;
  return groups.flatMap((group) => group.padStart(4, '0').split(''));
}

/**
 * The reverse zone of an IPv4 address: its pool's, cut at an octet boundary (a /22 pool is four
 * /24 zones, a /16 one zone), or for a pool smaller than a /24 the RFC 2317 zone `<first>/<prefix>.`
 * inside the /24 (the /24's owner points each address there with a CNAME). An address of no pool
 * (the simulator's) falls in its /24.
 */
function ipv4Place(address: string, pools: Ipv4Pool[]): PtrPlace {
  const octets = address.split('.');
  const n = ipv4ToNumber(address);
  const pool = pools.find((p) => n >>> (32 - p.prefix) === ipv4ToNumber(p.cidr.split('/')[0]) >>> (32 - p.prefix));
  const prefix = pool?.prefix ?? 24;
  const name = `${[...octets].reverse().join('.')}.in-addr.arpa`;
  if (prefix > 24) {
    const first = Number(octets[3]) & (0xff << (32 - prefix)) & 0xff;
    const zone = `${first}/${prefix}.${octets.slice(0, 3).reverse().join('.')}.in-addr.arpa`;
    return { zone, name: `${octets[3]}.${zone}` };
  }
  const kept = Math.ceil(prefix / 8);
  return { zone: `${octets.slice(0, kept).reverse().join('.')}.in-addr.arpa`, name };
}

/** The nibble zone of an IPv6 address's /64 (every pool is one /64). */
function ipv6Place(address: string): PtrPlace {
  const all = nibbles(address).reverse();
  return { zone: `${all.slice(16).join('.')}.ip6.arpa`, name: `${all.join('.')}.ip6.arpa` };
}

export function ptrPlace(address: string, pools: Ipv4Pool[]): PtrPlace {
  return isIPv4(address) ? ipv4Place(address, pools) : ipv6Place(address);
}

/** Every reverse zone of the configured pools (none past 256: larger pools get theirs when a PTR is first set). */
export function poolZones(v4: Ipv4Pool[], v6: Ipv6Pool | undefined): string[] {
  const zones = new Set<string>();
  for (const pool of v4) {
    const step = pool.prefix > 24 ? 2 ** (32 - pool.prefix) : 2 ** (32 - Math.ceil(pool.prefix / 8) * 8);
    const base = ipv4ToNumber(pool.cidr.split('/')[0]);
    for (let at = base; at < base + 2 ** (32 - pool.prefix) && zones.size < MAX_POOL_ZONES; at += step) {
      const address = [24, 16, 8, 0].map((shift) => Math.floor(at / 2 ** shift) % 256).join('.');
      zones.add(ipv4Place(address, [pool]).zone);
    }
  }
  if (v6) zones.add(ipv6Place(`${v6.prefix64}::`).zone);
  return [...zones];
}
