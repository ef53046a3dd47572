import type { GuestFirewall, GuestFirewallRule } from '../guest-firewalls';

/**
 * libvirt nwfilter XML for cloud firewalls (issue 52): a filter per firewall holding its accept
 * rules, and a filter per VPS, referenced from its bridged interface, that references them and adds
 * the policy. libvirt flattens a filter tree into one chain per direction ordered by priority, so
 * the priorities below keep every accept ahead of the drops. Rule direction `in` is traffic to the
 * guest; addresses and ports are the packet's own (`in`: source address, destination port). An
 * accept also lets the connection's answers through; a drop is stateless and lands in the chains
 * of both directions, so an open outbound direction needs accepts of its own.
 */
export const firewallFilterName = (firewallId: string): string => `hosting-fw-${firewallId}`;
export const vpsFilterName = (serviceId: string): string => `hosting-vps-${serviceId}`;

const BRIDGE_INTERFACE = /<interface\s[^>]*type=['"]bridge['"][\s\S]*?<\/interface>/;
const PRIORITY = { neighbourDiscovery: 100, related: 200, allowed: 300, outboundOpen: 500, dropped: 900 } as const;
/** Router and neighbour solicitations and advertisements, and redirects: conntrack calls them invalid. */
const NEIGHBOUR_DISCOVERY = [133, 134, 135, 136, 137];

export function firewallFilterXml(firewall: GuestFirewall): string {
  return filterXml(firewallFilterName(firewall.id), firewall.id, firewall.rules.flatMap(ruleXml));
}

/** Empty (everything passes) without firewalls; otherwise Hetzner's semantics: inbound closed, outbound open until a firewall has an `out` rule. */
export function vpsFilterXml(serviceId: string, firewalls: GuestFirewall[]): string {
  if (!firewalls.length) return filterXml(vpsFilterName(serviceId), serviceId, []);
  const outboundRestricted = firewalls.some((firewall) => firewall.rules.some((rule) => rule.direction === 'out'));
  const body = [
    // ICMP types cannot be named in an `inout` rule (libvirt silently drops it), hence one of each.
    ...NEIGHBOUR_DISCOVERY.flatMap((type) =>
      (['in', 'out'] as const).map((direction) =>
        rule('accept', direction, PRIORITY.neighbourDiscovery, `<icmpv6 type='${type}'/>`, " statematch='false'"),
      ),
    ),
    // ICMP errors about an allowed connection (path MTU discovery's "too big" among them).
    ...['<icmp/>', '<icmpv6/>'].map((icmp) => rule('accept', 'inout', PRIORITY.related, icmp.replace('/>', " state='RELATED'/>"))),
    ...firewalls.map((firewall) => `<filterref filter='${escapeXml(firewallFilterName(firewall.id))}'/>`),
    ...(outboundRestricted ? [] : everything('accept', 'out', PRIORITY.outboundOpen)),
    ...everything('drop', 'in', PRIORITY.dropped),
    ...(outboundRestricted ? everything('drop', 'out', PRIORITY.dropped) : []),
  ];
  return filterXml(vpsFilterName(serviceId), serviceId, body);
}

/**
 * A domain's bridged interface with the VPS's filter added (a domain defined before firewalls
 * existed); null when it has no bridged interface or already references a filter.
 */
export function bridgeInterfaceWithFilter(domainXml: string, serviceId: string): string | null {
  const element = BRIDGE_INTERFACE.exec(domainXml)?.[0];
  if (!element || element.includes('<filterref')) return null;
  return element.replace(/<\/interface>$/, `${vpsFilterRef(serviceId)}</interface>`);
}

/** The whole domain with bridgeInterfaceWithFilter's interface, or unchanged. */
export function withVpsFilter(domainXml: string, serviceId: string): string {
  const filtered = bridgeInterfaceWithFilter(domainXml, serviceId);
  return filtered ? domainXml.replace(BRIDGE_INTERFACE, () => filtered) : domainXml;
}

/** The reference to the VPS's filter in its domain's bridged interface. */
export function vpsFilterRef(serviceId: string): string {
  return `<filterref filter='${escapeXml(vpsFilterName(serviceId))}'/>`;
}

function filterXml(name: string, uuid: string, body: string[]): string {
  const lines = [`<filter name='${escapeXml(name)}' chain='root'>`, `<uuid>${escapeXml(uuid)}</uuid>`, ...body].join('\n  ');
  return `${lines}\n</filter>\n`;
}

function ruleXml(r: GuestFirewallRule): string[] {
  const ends = r.direction === 'in' ? 'src' : 'dst';
  const ports = r.protocol !== 'icmp' && r.ports ? ` dstportstart='${r.ports.from}' dstportend='${r.ports.to}'` : '';
  return r.addresses.map((cidr) => {
    const [address, prefix] = cidr.split('/');
    const v6 = address.includes(':');
    const bits = prefix === undefined ? (v6 ? 128 : 32) : Number(prefix);
    const protocol = v6 ? { tcp: 'tcp-ipv6', udp: 'udp-ipv6', icmp: 'icmpv6' }[r.protocol] : r.protocol;
    const match = bits === 0 ? '' : ` ${ends}ipaddr='${escapeXml(address)}' ${ends}ipmask='${bits}'`;
    return rule('accept', r.direction, PRIORITY.allowed, `<${protocol}${match}${ports}/>`);
  });
}

function everything(action: 'accept' | 'drop', direction: 'in' | 'out', priority: number): string[] {
  return ['<all/>', '<all-ipv6/>'].map((match) => rule(action, direction, priority, match));
}

function rule(action: string, direction: string, priority: number, match: string, extra = ''): string {
  return `<rule action='${action}' direction='${direction}' priority='${priority}'${extra}>${match}</rule>`;
}

function escapeXml(value: string): string {
  return value.replace(/[<>&'"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&apos;', '"': '&quot;' })[c]!);
}
