import type { Ipv4Pool } from '@app/core';
import { poolZones, ptrPlace } from './reverse-zones';

const pool = (cidr: string): Ipv4Pool => {
  const prefix = Number(cidr.split('/')[1]);
  return { cidr, prefix, gateway: '', first: 0, last: 0 };
};

describe('reverse zones', () => {
  it('puts an address of a /24 pool in the /24 zone', () => {
    expect(ptrPlace('203.0.113.5', [pool('203.0.113.0/24')])).toEqual({ zone: '113.0.203.in-addr.arpa', name: '5.113.0.203.in-addr.arpa' });
  });

  it('cuts a larger pool at octet boundaries', () => {
    expect(ptrPlace('10.1.2.3', [pool('10.1.0.0/16')]).zone).toBe('1.10.in-addr.arpa');
    expect(poolZones([pool('198.51.100.0/22')], undefined)).toEqual([
      '100.51.198.in-addr.arpa',
      '101.51.198.in-addr.arpa',
      '102.51.198.in-addr.arpa',
      '103.51.198.in-addr.arpa',
    ]);
  });

  it('uses RFC 2317 classless zones for pools smaller than a /24', () => {
    const pools = [pool('198.51.100.64/26')];
    expect(ptrPlace('198.51.100.70', pools)).toEqual({ zone: '64/26.100.51.198.in-addr.arpa', name: '70.64/26.100.51.198.in-addr.arpa' });
    expect(poolZones(pools, undefined)).toEqual(['64/26.100.51.198.in-addr.arpa']);
  });

  it('puts an address outside every pool in its /24', () => {
    expect(ptrPlace('192.0.2.9', [pool('203.0.113.0/24')]).zone).toBe('2.0.192.in-addr.arpa');
  });

  it('uses the nibble zone of the /64 for IPv6', () => {
    expect(ptrPlace('2001:db8::10', [])).toEqual({
      zone: '0.0.0.0.0.0.0.0.8.b.d.0.1.0.0.2.ip6.arpa',
      name: '0.1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.8.b.d.0.1.0.0.2.ip6.arpa',
    });
    expect(poolZones([], { cidr: '2001:db8:10:20::/64', prefix64: '2001:db8:10:20', gateway: '' })).toEqual([
      '0.2.0.0.0.1.0.0.8.b.d.0.1.0.0.2.ip6.arpa',
    ]);
  });
});
