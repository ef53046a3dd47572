import { Injectable } from '@nestjs/common';

/** One rule as the hypervisor enforces it: `in` is traffic to the VPS, `out` traffic from it. */
export interface GuestFirewallRule {
  direction: 'in' | 'out';
  protocol: 'tcp' | 'udp' | 'icmp';
  /** The VPS's port for `in`, the remote port for `out`; null: every port (always null for icmp). */
  ports: { from: number; to: number } | null;
  /** Canonical CIDRs, IPv4 and IPv6 mixed: the remote side (source for `in`, destination for `out`). */
  addresses: string[];
}

export interface GuestFirewall {
  id: string;
  rules: GuestFirewallRule[];
}

export type GuestFirewallSource = (serviceId: string) => Promise<GuestFirewall[]>;

/**
 * The firewalls applied to a VPS, asked for whenever its machine is defined on a hypervisor (made,
 * rebuilt, rescued, moved, restored), so the filters go wherever the machine goes. The firewalls
 * room registers the source; until it does, a VPS has none (everything passes).
 */
@Injectable()
export class GuestFirewalls {
  private source: GuestFirewallSource = () => Promise.resolve([]);

  register(source: GuestFirewallSource): void {
    this.source = source;
  }

  of(serviceId: string): Promise<GuestFirewall[]> {
    return this.source(serviceId);
  }
}
