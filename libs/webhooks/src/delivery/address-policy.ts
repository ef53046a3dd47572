import ipaddr from 'ipaddr.js';

/**
 * The class of an IP address, by ipaddr.js's range names ('unicast', 'loopback', 'private',
 * 'linkLocal', 'carrierGradeNat', 'uniqueLocal', 'multicast', 'unspecified', ...). An IPv4-mapped
 * IPv6 address (::ffff:10.0.0.1) is classified as the IPv4 address it carries.
 */
export function addressClass(address: string): string {
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  return parsed.range();
}

/**
 * Only public unicast addresses may receive deliveries: every other range (loopback, private,
 * link-local with the 169.254.169.254 metadata service, carrier-grade NAT, unique local,
 * multicast, unspecified, reserved, translation prefixes) is refused, allow-list style.
 */
export function isPublicAddress(address: string): boolean {
  return addressClass(address) === 'unicast';
}

export function isIpLiteral(host: string): boolean {
  return ipaddr.isValid(host.replace(/^\[|\]$/g, ''));
}
