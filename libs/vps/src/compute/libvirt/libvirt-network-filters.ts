import { ComputeProviderError } from '../compute-provider';
import type { GuestFirewall, GuestFirewalls } from '../guest-firewalls';
import { firewallFilterXml, vpsFilterName, vpsFilterRef, vpsFilterXml } from './network-filters';
import type { Virsh } from './virsh';
import { withXmlFile } from './xml-file';

/**
 * The nwfilters of VPSes on a libvirt host (network-filters.ts). Defining a filter again makes
 * libvirt instantiate the new rules live on every running domain that references it.
 */
export class NetworkFilters {
  constructor(
    private readonly virsh: Virsh,
    private readonly firewalls: GuestFirewalls,
    private readonly timeoutMs: number,
  ) {}

  /** Before a domain is defined on `uri`: the filter it references (a bridged interface's) must exist, with the VPS's firewalls. */
  async beforeDefine(uri: string, serviceId: string, domainXml: string): Promise<void> {
    if (!domainXml.includes(vpsFilterRef(serviceId))) return;
    await this.sync(uri, serviceId, await this.firewalls.of(serviceId));
  }

  /**
   * The firewalls' filters, then the VPS's. A firewall filter no longer referenced stays: libvirt
   * would let it go while a stopped domain's filter still names it, and that domain would not start.
   */
  async sync(uri: string, serviceId: string, firewalls: GuestFirewall[]): Promise<void> {
    for (const firewall of firewalls) await this.define(uri, firewallFilterXml(firewall));
    await this.define(uri, vpsFilterXml(serviceId, firewalls));
  }

  /** After the VPS's domain is gone from `uri`. Best effort: a filter left behind filters nothing, so only an unreachable host is an error. */
  async remove(uri: string, serviceId: string): Promise<void> {
    await this.virsh
      .run(uri, ['nwfilter-undefine', vpsFilterName(serviceId)], { timeoutMs: this.timeoutMs, expected: ['not_found'] })
      .catch((err: unknown) => (err instanceof ComputeProviderError && !err.retryable ? '' : Promise.reject(err)));
  }

  private define(uri: string, xml: string): Promise<string> {
    return withXmlFile(xml, (file) => this.virsh.run(uri, ['nwfilter-define', file], { timeoutMs: this.timeoutMs }));
  }
}
