import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import {
  IPV4_MULTICAST,
  IPV4_SPECIAL_PURPOSE,
  IPV6_MULTICAST,
  IPV6_OUTSIDE_GLOBAL_UNICAST,
  IPV6_SPECIAL_PURPOSE,
  RegistryEntry,
} from './address-policy.fixture';
import { isPublicAddress, nonPublicKind } from './address-policy';
import { retryDelaySeconds } from './retry-schedule';
import { urlProblem } from './webhook-url';

// Addresses as numbers, so that blocks, their first, middle and last addresses and their neighbours
// are computed here from the registries, independently of the policy's own tables.
const toNumber = (address: string): bigint =>
  ipaddr
    .parse(address)
    .toByteArray()
    .reduce((n, byte) => (n << 8n) | BigInt(byte), 0n);
const toText = (n: bigint, bits: number): string => {
  const bytes: number[] = [];
  for (let shift = bits - 8; shift >= 0; shift -= 8) bytes.push(Number((n >> BigInt(shift)) & 0xffn));
  return ipaddr.fromByteArray(bytes).toString();
};
const span = (cidr: string) => {
  const [address, length] = cidr.split('/');
  const bits = address.includes(':') ? 128 : 32;
  const first = toNumber(address);
  return { bits, first, last: first + (1n << BigInt(bits - Number(length))) - 1n };
};
const within = (n: bigint, cidr: string) => {
  const { first, last } = span(cidr);
  return n >= first && n <= last;
};
const IPV4_LISTED = [...IPV4_SPECIAL_PURPOSE, ...IPV4_MULTICAST];
const IPV6_LISTED = [...IPV6_SPECIAL_PURPOSE, ...IPV6_MULTICAST];

/**
 * The policy, stated from the registries: an IPv4 address in any entry is refused, globally
 * reachable or not (docs/decisions/webhooks.md, "Address policy"); an IPv6 address in a range that
 * carries an IPv4 address (mapped, compatible, well-known NAT64, 6to4, Teredo's server and
 * inverted client) is judged by it; any other IPv6 address in an entry, or outside 2000::/3, is refused.
 */
const publicIPv4 = (n: bigint) => !IPV4_LISTED.some((e) => within(n, e.block));
const publicIPv6 = (n: bigint): boolean => {
  const low32 = n & 0xffffffffn;
  if (within(n, '::ffff:0:0/96') || within(n, '::/96') || within(n, '64:ff9b::/96')) return publicIPv4(low32);
  if (within(n, '2002::/16')) return publicIPv4((n >> 80n) & 0xffffffffn);
  if (within(n, '2001::/32')) return publicIPv4((n >> 64n) & 0xffffffffn) && publicIPv4(low32 ^ 0xffffffffn);
  return within(n, '2000::/3') && !IPV6_LISTED.some((e) => within(n, e.block));
};
const expectedPublic = (address: string) => (isIP(address) === 4 ? publicIPv4(toNumber(address)) : publicIPv6(toNumber(address)));

const ALL_ENTRIES: RegistryEntry[] = [...IPV4_LISTED, ...IPV6_LISTED, ...IPV6_OUTSIDE_GLOBAL_UNICAST];

describe('address policy against the IANA registries', () => {
  const samples = ALL_ENTRIES.flatMap((e) => {
    const { bits, first, last } = span(e.block);
    return (
      [
        ['first', first],
        ['middle', first + (last - first + 1n) / 2n],
        ['last', last],
      ] as const
    ).map(([which, n]) => [e.block, e.name, String(e.globallyReachable), which, toText(n, bits), expectedPublic(toText(n, bits))] as const);
  });

  it.each(samples)(
    '%s (%s, globally reachable: %s): the %s address, %s, is public: %s',
    (_block, _name, _reachable, _which, address, expected) => {
      expect(isPublicAddress(address)).toBe(expected);
    },
  );

  const neighbours = ALL_ENTRIES.flatMap((e) => {
    const { bits, first, last } = span(e.block);
    return [first - 1n, last + 1n]
      .filter((n) => n >= 0n && n < 1n << BigInt(bits))
      .map((n) => [e.block, toText(n, bits), expectedPublic(toText(n, bits))] as const);
  });

  it.each(neighbours)('just outside %s, %s is public: %s', (_block, address, expected) => {
    expect(isPublicAddress(address)).toBe(expected);
  });

  it('has teeth: the registries leave public addresses around their blocks', () => {
    expect(samples.filter(([, , , , , expected]) => expected).length).toBeGreaterThan(0);
    expect(neighbours.filter(([, , expected]) => expected).length).toBeGreaterThan(40);
  });
});

describe('address policy', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['169.254.169.254', 'link-local'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['192.0.0.9', 'IETF protocol assignment'],
    ['192.31.196.1', 'AS112'],
    ['255.255.255.255', 'broadcast'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    // IPv4-compatible (deprecated), which ipaddr.js calls unicast: the bypass.
    ['::127.0.0.1', 'loopback'],
    ['0:0:0:0:0:0:7f00:1', 'loopback'],
    ['::a9fe:a9fe', 'link-local'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:a9fe:a9fe', 'link-local'],
    ['64:ff9b::10.0.0.1', 'private'],
    ['64:ff9b::a9fe:a9fe', 'link-local'],
    ['64:ff9b:1::808:808', 'local-use IPv4/IPv6 translation'],
    ['2002:7f00:1::1', 'loopback'],
    ['2002:a00:1::', 'private'],
    // RFC 4380's example: server 65.54.227.120, client 192.0.2.45 (documentation).
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'documentation'],
    ['2001:0:7f00:1:8000:63bf:f7f7:f7f7', 'loopback'],
    ['2001:1::1', 'IETF protocol assignment'],
    ['2620:4f:8000::1', 'AS112'],
    ['fec0::1', 'site-local'],
    ['fe80::1%eth0', 'link-local'],
    ['::ffff:0:7f00:1', 'reserved'],
    ['4000::1', 'reserved'],
    ['1.2.3', 'unparsable'],
    ['localhost', 'unparsable'],
  ])('refuses %s (%s)', (address, kind) => {
    expect(nonPublicKind(address)).toBe(kind);
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each([
    '93.184.215.14',
    '8.8.8.8',
    '9.255.255.255',
    '11.0.0.0',
    '2606:4700:4700::1111',
    '::ffff:8.8.8.8',
    '::8.8.8.8',
    '64:ff9b::8.8.8.8',
    '2002:808:808::1',
    '2001:0:4136:e378:8000:63bf:f7f7:f7f7',
  ])('accepts the public address %s', (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });
});

describe('endpoint URLs', () => {
  const strict = { allowHttp: false, allowPrivate: false };
  it.each([
    ['http://hooks.example.com/', 'must use https'],
    ['ftp://hooks.example.com/', 'must use https'],
    ['https://user:pw@hooks.example.com/', 'may not carry credentials'],
    ['not a url', 'must be an absolute URL'],
    [`https://hooks.example.com/${'a'.repeat(2048)}`, 'must be at most 2048 characters'],
    ['https://127.0.0.1/hook', 'may not point at a non-public address (loopback)'],
    ['https://0x7f.1/hook', 'may not point at a non-public address (loopback)'],
    ['https://[::ffff:10.0.0.1]/hook', 'may not point at a non-public address (private)'],
    ['https://[::127.0.0.1]/', 'may not point at a non-public address (loopback)'],
    ['https://[0:0:0:0:0:0:7f00:1]/', 'may not point at a non-public address (loopback)'],
    ['https://[64:ff9b::169.254.169.254]/', 'may not point at a non-public address (link-local)'],
    ['https://169.254.169.254/latest/meta-data', 'may not point at a non-public address (link-local)'],
  ])('refuses %s', (url, problem) => {
    expect(urlProblem(url, strict)).toBe(problem);
  });

  it('accepts https host names (checked again at each attempt), public literals and, with the flags, http and loopback', () => {
    expect(urlProblem('https://hooks.example.com/x?y=1', strict)).toBeNull();
    expect(urlProblem('https://[64:ff9b::808:808]/', strict)).toBeNull();
    expect(urlProblem('http://127.0.0.1:8080/', { allowHttp: true, allowPrivate: true })).toBeNull();
  });
});

describe('retry schedule', () => {
  it('doubles from the base with ±20% jitter, capped at 6 hours', () => {
    expect([1, 2, 3, 4].map((n) => retryDelaySeconds(n, 30, () => 0.5))).toEqual([30, 60, 120, 240]);
    expect(retryDelaySeconds(1, 30, () => 0)).toBe(24);
    expect(retryDelaySeconds(1, 30, () => 1)).toBe(36);
    expect(retryDelaySeconds(30, 30, () => 0.5)).toBe(6 * 3600);
  });
});
