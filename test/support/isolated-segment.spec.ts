import { execFileSync } from 'node:child_process';
import { IsolatedSegment, removeLeftovers } from './isolated-segment';

const asRoot = process.getuid?.() === 0;
const ip = (...args: string[]) => execFileSync('ip', args, { encoding: 'utf8' });

(asRoot || process.env.CI ? describe : describe.skip)('An isolated segment for bridged guests', () => {
  it('holds the gateways in its namespace, nothing on the root side, and is gone after remove (twice)', async () => {
    const segment = IsolatedSegment.create({ gateways: ['203.0.113.1/24', '2001:db8::1/64'], local: ['198.51.100.53/32'] });
    try {
      expect(segment.bridge).toMatch(/^hbr-\d+-[0-9a-f]{2}$/);
      expect(segment.bridge.length).toBeLessThanOrEqual(15);
      // The bridge and its veth end have no address at all, not even IPv6 link-local.
      expect(JSON.parse(ip('-j', 'address', 'show', 'dev', segment.bridge))[0].addr_info).toEqual([]);
      expect(ip('-o', 'link', 'show', 'master', segment.bridge)).toMatch(/hvb-/);
      const addresses = await segment.run(['ip', '-o', 'address', 'show']);
      expect(addresses.stdout).toMatch(/inet 203\.0\.113\.1\/24/);
      expect(addresses.stdout).toMatch(/inet6 2001:db8::1\/64 scope global/);
      expect(addresses.stdout).not.toMatch(/tentative/);
      expect(addresses.stdout).toMatch(/inet 198\.51\.100\.53\/32/);
      // No route out of the namespace: only its own segment.
      expect((await segment.run(['ip', 'route', 'show', 'default'])).stdout).toBe('');
      expect((await segment.run(['ping', '-c', '1', '-W', '2', '2001:db8::1'])).code).toBe(0);
    } finally {
      segment.remove();
      segment.remove();
    }
    expect(ip('netns', 'list')).not.toContain(segment.netns);
    expect(ip('-o', 'link', 'show')).not.toContain(segment.bridge);
  });

  it("removes what a killed run left behind, and not a live run's segment", () => {
    // A pid no process has: above pid_max.
    const dead = 4194305;
    const tag = `${dead}-ee`;
    ip('link', 'add', 'name', `hbr-${tag}`, 'type', 'bridge');
    ip('netns', 'add', `hns-${tag}`);
    ip('link', 'add', 'name', `hvb-${tag}`, 'type', 'veth', 'peer', 'name', `hvn-${tag}`, 'netns', `hns-${tag}`);
    const live = IsolatedSegment.create({ gateways: ['203.0.113.1/24'] });
    try {
      removeLeftovers();
      expect(ip('netns', 'list')).not.toContain(`hns-${tag}`);
      expect(ip('-o', 'link', 'show')).not.toMatch(new RegExp(`h(br|vb)-${tag}`));
      expect(ip('netns', 'list')).toContain(live.netns);
      expect(ip('-o', 'link', 'show')).toContain(live.bridge);
    } finally {
      live.remove();
    }
  });
});
