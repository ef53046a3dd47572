/**
 * IANA's registries of special addresses, every entry, as data for address-policy.spec.ts.
 * `globallyReachable` is the registry's "Globally Reachable" column: true, false, or null for
 * "N/A" and for the empty cells of terminated entries.
 *
 * Sources, transcribed 2026-11-25 (newest entry: 100:0:0:1::/64, RFC 9780, 2025-04):
 * - IANA IPv4 Special-Purpose Address Registry,
 *   https://www.iana.org/assignments/iana-ipv4-special-registry/iana-ipv4-special-registry.xhtml
 *   (its one row "192.0.0.170/32, 192.0.0.171/32" is two rows here);
 * - IANA IPv6 Special-Purpose Address Registry,
 *   https://www.iana.org/assignments/iana-ipv6-special-registry/iana-ipv6-special-registry.xhtml
 * - multicast, which has registries of its own: 224.0.0.0/4 (IPv4 Multicast Address Space
 *   Registry, RFC 5771) and ff00::/8 (IPv6 Multicast Address Space Registry, RFC 4291);
 * - IANA Internet Protocol Version 6 Address Space,
 *   https://www.iana.org/assignments/ipv6-address-space/ipv6-address-space.xhtml
 *   (only 2000::/3 is global unicast; fec0::/10 is the deprecated site-local block).
 */
export interface RegistryEntry {
  block: string;
  name: string;
  rfc: string;
  globallyReachable: boolean | null;
}

const entry = (block: string, name: string, rfc: string, globallyReachable: boolean | null): RegistryEntry => ({
  block,
  name,
  rfc,
  globallyReachable,
});

export const IPV4_SPECIAL_PURPOSE: RegistryEntry[] = [
  entry('0.0.0.0/8', '"This network"', 'RFC 791, Section 3.2', false),
  entry('0.0.0.0/32', '"This host on this network"', 'RFC 1122, Section 3.2.1.3', false),
  entry('10.0.0.0/8', 'Private-Use', 'RFC 1918', false),
  entry('100.64.0.0/10', 'Shared Address Space', 'RFC 6598', false),
  entry('127.0.0.0/8', 'Loopback', 'RFC 1122, Section 3.2.1.3', false),
  entry('169.254.0.0/16', 'Link Local', 'RFC 3927', false),
  entry('172.16.0.0/12', 'Private-Use', 'RFC 1918', false),
  entry('192.0.0.0/24', 'IETF Protocol Assignments', 'RFC 6890, Section 2.1', false),
  entry('192.0.0.0/29', 'IPv4 Service Continuity Prefix', 'RFC 7335', false),
  entry('192.0.0.8/32', 'IPv4 dummy address', 'RFC 7600', false),
  entry('192.0.0.9/32', 'Port Control Protocol Anycast', 'RFC 7723', true),
  entry('192.0.0.10/32', 'Traversal Using Relays around NAT Anycast', 'RFC 8155', true),
  entry('192.0.0.170/32', 'NAT64/DNS64 Discovery', 'RFC 8880, RFC 7050, Section 2.2', false),
  entry('192.0.0.171/32', 'NAT64/DNS64 Discovery', 'RFC 8880, RFC 7050, Section 2.2', false),
  entry('192.0.2.0/24', 'Documentation (TEST-NET-1)', 'RFC 5737', false),
  entry('192.31.196.0/24', 'AS112-v4', 'RFC 7535', true),
  entry('192.52.193.0/24', 'AMT', 'RFC 7450', true),
  entry('192.88.99.0/24', 'Deprecated (6to4 Relay Anycast)', 'RFC 7526', null),
  entry('192.88.99.2/32', '6a44-relay anycast address', 'RFC 6751', false),
  entry('192.168.0.0/16', 'Private-Use', 'RFC 1918', false),
  entry('192.175.48.0/24', 'Direct Delegation AS112 Service', 'RFC 7534', true),
  entry('198.18.0.0/15', 'Benchmarking', 'RFC 2544', false),
  entry('198.51.100.0/24', 'Documentation (TEST-NET-2)', 'RFC 5737', false),
  entry('203.0.113.0/24', 'Documentation (TEST-NET-3)', 'RFC 5737', false),
  entry('240.0.0.0/4', 'Reserved', 'RFC 1112, Section 4', false),
  entry('255.255.255.255/32', 'Limited Broadcast', 'RFC 8190, RFC 919, Section 7', false),
];

export const IPV4_MULTICAST: RegistryEntry[] = [entry('224.0.0.0/4', 'Multicast', 'RFC 5771', false)];

export const IPV6_SPECIAL_PURPOSE: RegistryEntry[] = [
  entry('::1/128', 'Loopback Address', 'RFC 4291', false),
  entry('::/128', 'Unspecified Address', 'RFC 4291', false),
  entry('::ffff:0:0/96', 'IPv4-mapped Address', 'RFC 4291', false),
  entry('64:ff9b::/96', 'IPv4-IPv6 Translat.', 'RFC 6052', true),
  entry('64:ff9b:1::/48', 'IPv4-IPv6 Translat.', 'RFC 8215', false),
  entry('100::/64', 'Discard-Only Address Block', 'RFC 6666', false),
  entry('100:0:0:1::/64', 'Dummy IPv6 Prefix', 'RFC 9780', false),
  entry('2001::/23', 'IETF Protocol Assignments', 'RFC 2928', false),
  entry('2001::/32', 'TEREDO', 'RFC 4380, RFC 8190', null),
  entry('2001:1::1/128', 'Port Control Protocol Anycast', 'RFC 7723', true),
  entry('2001:1::2/128', 'Traversal Using Relays around NAT Anycast', 'RFC 8155', true),
  entry('2001:1::3/128', 'DNS-SD Service Registration Protocol Anycast', 'RFC 9665', true),
  entry('2001:2::/48', 'Benchmarking', 'RFC 5180, RFC Errata 1752', false),
  entry('2001:3::/32', 'AMT', 'RFC 7450', true),
  entry('2001:4:112::/48', 'AS112-v6', 'RFC 7535', true),
  entry('2001:10::/28', 'Deprecated (previously ORCHID)', 'RFC 4843', null),
  entry('2001:20::/28', 'ORCHIDv2', 'RFC 7343', true),
  entry('2001:30::/28', 'Drone Remote ID Protocol Entity Tags (DETs) Prefix', 'RFC 9374', true),
  entry('2001:db8::/32', 'Documentation', 'RFC 3849', false),
  entry('2002::/16', '6to4', 'RFC 3056', null),
  entry('2620:4f:8000::/48', 'Direct Delegation AS112 Service', 'RFC 7534', true),
  entry('3fff::/20', 'Documentation', 'RFC 9637', false),
  entry('5f00::/16', 'Segment Routing (SRv6) SIDs', 'RFC 9602', false),
  entry('fc00::/7', 'Unique-Local', 'RFC 4193, RFC 8190', false),
  entry('fe80::/10', 'Link-Local Unicast', 'RFC 4291', false),
];

export const IPV6_MULTICAST: RegistryEntry[] = [entry('ff00::/8', 'Multicast', 'RFC 4291', false)];

/** Every block of the IPv6 address space but 2000::/3 (global unicast), which is not reachable as a unicast destination on the Internet. */
/** Every block of the IPv6 address space but 2000::/3, global unicast (that registry has no "Globally Reachable" column). */
export const IPV6_OUTSIDE_GLOBAL_UNICAST: RegistryEntry[] = [
  entry('::/8', 'Reserved by IETF', 'RFC 4291', null),
  entry('100::/8', 'Reserved by IETF', 'RFC 4291', null),
  entry('200::/7', 'Reserved by IETF', 'RFC 4048', null),
  entry('400::/6', 'Reserved by IETF', 'RFC 4291', null),
  entry('800::/5', 'Reserved by IETF', 'RFC 4291', null),
  entry('1000::/4', 'Reserved by IETF', 'RFC 4291', null),
  entry('4000::/3', 'Reserved by IETF', 'RFC 4291', null),
  entry('6000::/3', 'Reserved by IETF', 'RFC 4291', null),
  entry('8000::/3', 'Reserved by IETF', 'RFC 4291', null),
  entry('a000::/3', 'Reserved by IETF', 'RFC 4291', null),
  entry('c000::/3', 'Reserved by IETF', 'RFC 4291', null),
  entry('e000::/4', 'Reserved by IETF', 'RFC 4291', null),
  entry('f000::/5', 'Reserved by IETF', 'RFC 4291', null),
  entry('f800::/6', 'Reserved by IETF', 'RFC 4291', null),
  entry('fc00::/7', 'Unique Local Unicast', 'RFC 4193', null),
  entry('fe00::/9', 'Reserved by IETF', 'RFC 4291', null),
  entry('fe80::/10', 'Link-Scoped Unicast', 'RFC 4291', null),
  entry('fec0::/10', 'Reserved by IETF (deprecated site-local)', 'RFC 3879', null),
  entry('ff00::/8', 'Multicast', 'RFC 4291', null),
];
