import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

interface RefusedRange<A> {
  range: [A, number];
  kind: string;
}
const v4 = (cidr: string, kind: string): RefusedRange<ipaddr.IPv4> => ({ range: ipaddr.IPv4.parseCIDR(cidr), kind });
const v6 = (cidr: string, kind: string): RefusedRange<ipaddr.IPv6> => ({ range: ipaddr.IPv6.parseCIDR(cidr), kind });

/**
 * Every entry of IANA's IPv4 special-purpose registry, and multicast, whatever its "globally
 * reachable" flag: none holds a customer's web server (docs/decisions/webhooks.md, "Address policy").
 * The first match names the kind, so a more specific entry comes before its parent.
 */
const REFUSED_V4 = [
  v4('255.255.255.255/32', 'broadcast'),
  v4('0.0.0.0/8', 'this-network'),
  v4('10.0.0.0/8', 'private'),
  v4('100.64.0.0/10', 'carrier-grade NAT'),
  v4('127.0.0.0/8', 'loopback'),
  v4('169.254.0.0/16', 'link-local'),
  v4('172.16.0.0/12', 'private'),
  v4('192.0.0.0/24', 'IETF protocol assignment'),
  v4('192.0.2.0/24', 'documentation'),
  v4('192.31.196.0/24', 'AS112'),
  v4('192.52.193.0/24', 'AMT'),
  v4('192.88.99.0/24', '6to4 relay anycast'),
  v4('192.168.0.0/16', 'private'),
  v4('192.175.48.0/24', 'AS112'),
  v4('198.18.0.0/15', 'benchmarking'),
  v4('198.51.100.0/24', 'documentation'),
  v4('203.0.113.0/24', 'documentation'),
  v4('224.0.0.0/4', 'multicast'),
  v4('240.0.0.0/4', 'reserved'),
];

/** The same for IPv6, less the ranges that carry an IPv4 address (EMBEDDING); anything outside 2000::/3 is refused too. */
const REFUSED_V6 = [
  v6('64:ff9b:1::/48', 'local-use IPv4/IPv6 translation'),
  v6('100::/64', 'discard-only'),
  v6('100:0:0:1::/64', 'dummy'),
  v6('2001::/23', 'IETF protocol assignment'),
  v6('2001:db8::/32', 'documentation'),
  v6('2620:4f:8000::/48', 'AS112'),
  v6('3fff::/20', 'documentation'),
  v6('5f00::/16', 'SRv6 segment identifier'),
  v6('fc00::/7', 'unique-local'),
  v6('fe80::/10', 'link-local'),
  v6('fec0::/10', 'site-local'),
  v6('ff00::/8', 'multicast'),
];
const UNSPECIFIED_AND_LOOPBACK = [v6('::/128', 'unspecified'), v6('::1/128', 'loopback')];
const GLOBAL_UNICAST = ipaddr.IPv6.parseCIDR('2000::/3');

/**
 * Deprecated and translation ranges that carry an IPv4 address, which is where the packets end up:
 * they are judged by it (by both of Teredo's, the server's and the client's, stored inverted).
 * The local-use NAT64 prefix (64:ff9b:1::/48) is not here: where it carries the address depends on
 * the operator's prefix length.
 */
const EMBEDDING: { range: [ipaddr.IPv6, number]; ipv4At: (bytes: number[]) => number[][] }[] = [
  { range: ipaddr.IPv6.parseCIDR('::ffff:0:0/96'), ipv4At: (b) => [b.slice(12)] }, // IPv4-mapped (RFC 4291)
  { range: ipaddr.IPv6.parseCIDR('::/96'), ipv4At: (b) => [b.slice(12)] }, // IPv4-compatible, deprecated (RFC 4291)
  { range: ipaddr.IPv6.parseCIDR('64:ff9b::/96'), ipv4At: (b) => [b.slice(12)] }, // NAT64 (RFC 6052)
  { range: ipaddr.IPv6.parseCIDR('2002::/16'), ipv4At: (b) => [b.slice(2, 6)] }, // 6to4 (RFC 3056)
  { range: ipaddr.IPv6.parseCIDR('2001::/32'), ipv4At: (b) => [b.slice(4, 8), b.slice(12).map((x) => x ^ 0xff)] }, // Teredo (RFC 4380)
];

function ipv4Kind(address: ipaddr.IPv4): string | null {
  return REFUSED_V4.find((r) => address.match(r.range))?.kind ?? null;
}

function ipv6Kind(address: ipaddr.IPv6): string | null {
  const special = UNSPECIFIED_AND_LOOPBACK.find((r) => address.match(r.range));
  if (special) return special.kind;
  const embedding = EMBEDDING.find((e) => address.match(e.range));
  if (embedding) {
    for (const octets of embedding.ipv4At(address.toByteArray())) {
      const kind = ipv4Kind(new ipaddr.IPv4(octets));
      if (kind) return kind;
    }
    return null;
  }
  const refused = REFUSED_V6.find((r) => address.match(r.range));
  if (refused) return refused.kind;
  return address.match(GLOBAL_UNICAST) ? null : 'reserved';
}

/**
 * What keeps an address from receiving deliveries ('loopback', 'private', 'documentation', ...), or
 * null for a public one. Allow-list style: a string that is not a plain IP address is refused too.
 */
export function nonPublicKind(address: string): string | null {
  switch (isIP(address)) {
    case 4:
      return ipv4Kind(ipaddr.IPv4.parse(address));
    case 6:
      return ipv6Kind(ipaddr.IPv6.parse(address));
    default:
      return 'unparsable';
  }
}

export function isPublicAddress(address: string): boolean {
  return nonPublicKind(address) === null;
}

export function isIpLiteral(host: string): boolean {
  return isIP(host.replace(/^\[|\]$/g, '')) !== 0;
}
