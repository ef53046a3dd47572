import type { GuestFirewall } from '../guest-firewalls';
import { bridgeInterfaceWithFilter, firewallFilterXml, vpsFilterXml, withVpsFilter } from './network-filters';

const SERVICE = '3f1c2a9e-8b7d-4c6e-9a1f-2b3c4d5e6f70';
const WEB = 'a1b2c3d4-0000-4000-8000-000000000001';
const MAIL = 'a1b2c3d4-0000-4000-8000-000000000002';
const rulesOf = (xml: string) => [...xml.matchAll(/<rule [^>]*>.*?<\/rule>/g)].map((m) => m[0]);

const web: GuestFirewall = {
  id: WEB,
  rules: [
    { direction: 'in', protocol: 'tcp', ports: { from: 80, to: 80 }, addresses: ['0.0.0.0/0', '::/0'] },
    { direction: 'in', protocol: 'udp', ports: { from: 8000, to: 8100 }, addresses: ['198.51.100.0/24', '2001:db8:1::/48'] },
    { direction: 'in', protocol: 'icmp', ports: null, addresses: ['203.0.113.7/32'] },
  ],
};
const mail: GuestFirewall = {
  id: MAIL,
  rules: [{ direction: 'out', protocol: 'tcp', ports: { from: 25, to: 25 }, addresses: ['192.0.2.0/24', '2001:db8::25/128'] }],
};

describe('firewallFilterXml', () => {
  it("is named and identified by the firewall, with one accept per rule and address family, matching the remote side's address", () => {
    const xml = firewallFilterXml(web);
    expect(xml).toMatch(new RegExp(`^<filter name='hosting-fw-${WEB}' chain='root'>\\n  <uuid>${WEB}</uuid>\\n`));
    expect(rulesOf(xml)).toEqual([
      `<rule action='accept' direction='in' priority='300'><tcp dstportstart='80' dstportend='80'/></rule>`,
      `<rule action='accept' direction='in' priority='300'><tcp-ipv6 dstportstart='80' dstportend='80'/></rule>`,
      `<rule action='accept' direction='in' priority='300'><udp srcipaddr='198.51.100.0' srcipmask='24' dstportstart='8000' dstportend='8100'/></rule>`,
      `<rule action='accept' direction='in' priority='300'><udp-ipv6 srcipaddr='2001:db8:1::' srcipmask='48' dstportstart='8000' dstportend='8100'/></rule>`,
      `<rule action='accept' direction='in' priority='300'><icmp srcipaddr='203.0.113.7' srcipmask='32'/></rule>`,
    ]);
  });

  it('matches the destination of outbound traffic (address and port)', () => {
    expect(rulesOf(firewallFilterXml(mail))).toEqual([
      `<rule action='accept' direction='out' priority='300'><tcp dstipaddr='192.0.2.0' dstipmask='24' dstportstart='25' dstportend='25'/></rule>`,
      `<rule action='accept' direction='out' priority='300'><tcp-ipv6 dstipaddr='2001:db8::25' dstipmask='128' dstportstart='25' dstportend='25'/></rule>`,
    ]);
  });
});

describe('vpsFilterXml', () => {
  it('lets everything pass without firewalls (an empty filter, so the domain can reference it anyway)', () => {
    expect(vpsFilterXml(SERVICE, [])).toBe(`<filter name='hosting-vps-${SERVICE}' chain='root'>\n  <uuid>${SERVICE}</uuid>\n</filter>\n`);
  });

  it('references each firewall and drops inbound traffic no rule accepted, keeping outbound open without out rules', () => {
    const xml = vpsFilterXml(SERVICE, [web]);
    expect(xml).toContain(`<filterref filter='hosting-fw-${WEB}'/>`);
    const rules = rulesOf(xml);
    expect(rules.slice(-4)).toEqual([
      `<rule action='accept' direction='out' priority='500'><all/></rule>`,
      `<rule action='accept' direction='out' priority='500'><all-ipv6/></rule>`,
      `<rule action='drop' direction='in' priority='900'><all/></rule>`,
      `<rule action='drop' direction='in' priority='900'><all-ipv6/></rule>`,
    ]);
  });

  it('drops outbound traffic too once any applied firewall has an out rule', () => {
    const rules = rulesOf(vpsFilterXml(SERVICE, [web, mail]));
    expect(rules.filter((r) => r.includes("direction='out' priority='500'"))).toEqual([]);
    expect(rules.slice(-2)).toEqual([
      `<rule action='drop' direction='out' priority='900'><all/></rule>`,
      `<rule action='drop' direction='out' priority='900'><all-ipv6/></rule>`,
    ]);
  });

  it('always lets neighbour discovery through, each type as separate in and out rules without state, and ICMP errors of allowed connections', () => {
    const rules = rulesOf(vpsFilterXml(SERVICE, [web]));
    for (const type of [133, 134, 135, 136, 137]) {
      for (const direction of ['in', 'out']) {
        expect(rules).toContain(
          `<rule action='accept' direction='${direction}' priority='100' statematch='false'><icmpv6 type='${type}'/></rule>`,
        );
      }
    }
    expect(rules).toContain(`<rule action='accept' direction='inout' priority='200'><icmpv6 state='RELATED'/></rule>`);
    expect(rules.some((r) => r.includes("direction='inout'") && r.includes('type='))).toBe(false);
  });

  it('keeps every accept, its firewalls included, ahead of the drops', () => {
    const priority = (r: string) => Number(/priority='(-?\d+)'/.exec(r)?.[1]);
    const accepts = [...rulesOf(vpsFilterXml(SERVICE, [web, mail])), ...rulesOf(firewallFilterXml(web))].filter((r) =>
      r.includes("action='accept'"),
    );
    const drops = rulesOf(vpsFilterXml(SERVICE, [web, mail])).filter((r) => r.includes("action='drop'"));
    expect(Math.max(...accepts.map(priority))).toBeLessThan(Math.min(...drops.map(priority)));
  });
});

describe("a domain's bridged interface and the VPS's filter", () => {
  const live = `<domain type='qemu' id='4'>
  <devices>
    <interface type='bridge'>
      <mac address='52:54:00:12:34:56'/>
      <source bridge='br0'/>
      <target dev='vnet3'/>
      <model type='virtio'/>
      <alias name='net0'/>
    </interface>
  </devices>
</domain>`;

  it('adds the filter to an interface that has none, for update-device, and leaves one that has a filter alone', () => {
    const device = bridgeInterfaceWithFilter(live, SERVICE);
    expect(device).toMatch(
      /^<interface type='bridge'>[\s\S]*<alias name='net0'\/>\n {4}<filterref filter='hosting-vps-[^']+'\/><\/interface>$/,
    );
    expect(bridgeInterfaceWithFilter(withVpsFilter(live, SERVICE), SERVICE)).toBeNull();
    expect(withVpsFilter(live, SERVICE)).toBe(live.replace(/<\/interface>/, `<filterref filter='hosting-vps-${SERVICE}'/></interface>`));
  });

  it('leaves a domain without a bridged interface (user networking) unchanged', () => {
    const user = `<domain><devices><graphics type='vnc'/></devices><qemu:commandline/></domain>`;
    expect(bridgeInterfaceWithFilter(user, SERVICE)).toBeNull();
    expect(withVpsFilter(user, SERVICE)).toBe(user);
  });
});
