import { Problem } from '@app/core';
import { canonicalCidr, checkRules, FirewallRule, guestRules, portRange } from './firewall-rules';

const web: FirewallRule = { direction: 'in', protocol: 'tcp', port: '80', addresses: ['0.0.0.0/0', '::/0'] };

function refusal(rules: FirewallRule[]): Problem {
  try {
    checkRules(rules);
  } catch (err) {
    return err as Problem;
  }
  throw new Error('accepted');
}

describe('firewall rules', () => {
  it('keeps CIDRs in canonical form and single addresses as hosts', () => {
    expect(canonicalCidr('2001:DB8:0:0::/32')).toBe('2001:db8::/32');
    expect(canonicalCidr('198.51.100.7')).toBe('198.51.100.7/32');
    expect(canonicalCidr('2001:db8::1')).toBe('2001:db8::1/128');
    expect(canonicalCidr('0.0.0.0/0')).toBe('0.0.0.0/0');
    expect(canonicalCidr('::/0')).toBe('::/0');
  });

  it('refuses malformed CIDRs, prefixes out of range and host bits, saying which network was meant', () => {
    expect(canonicalCidr('10.0.0.300/8')).toEqual({ problem: expect.stringContaining('is not an IPv4 or IPv6 CIDR') });
    expect(canonicalCidr('10.0.0.0/33')).toEqual({ problem: expect.stringContaining('at most /32') });
    expect(canonicalCidr('10.0.0.1/8')).toEqual({ problem: expect.stringContaining('the network is 10.0.0.0/8') });
    expect(canonicalCidr('2001:db8::1/64')).toEqual({ problem: expect.stringContaining('the network is 2001:db8::/64') });
    expect(canonicalCidr('example.com/8')).toHaveProperty('problem');
    expect(canonicalCidr('10.0.0.0/8/1')).toHaveProperty('problem');
  });

  it('reads ports and ranges within 1..65535', () => {
    expect(portRange('80')).toEqual({ from: 80, to: 80 });
    expect(portRange('8000-8100')).toEqual({ from: 8000, to: 8100 });
    for (const bad of ['0', '65536', '100-80', '80-', 'http', '1-2-3', '-1']) expect(portRange(bad)).toBeNull();
  });

  it('names every refused rule and field in one 400', () => {
    const problem = refusal([
      web,
      { direction: 'in', protocol: 'icmp', port: '1', addresses: ['0.0.0.0/0'] },
      { direction: 'out', protocol: 'udp', port: '70000', addresses: ['10.0.0.1/8'] },
    ]);
    expect(problem.getStatus()).toBe(400);
    expect(problem.errors?.map((e) => e.field)).toEqual(['rules[1].port', 'rules[2].port', 'rules[2].addresses[0]']);
  });

  it('gives the hypervisor port ranges and the same addresses, duplicates dropped', () => {
    const rules = checkRules([web, { direction: 'out', protocol: 'udp', addresses: ['10.0.0.0/8', '10.0.0.0/8'] }]);
    expect(guestRules(rules)).toEqual([
      { direction: 'in', protocol: 'tcp', ports: { from: 80, to: 80 }, addresses: ['0.0.0.0/0', '::/0'] },
      { direction: 'out', protocol: 'udp', ports: null, addresses: ['10.0.0.0/8'] },
    ]);
  });
});
