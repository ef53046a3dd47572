import { DnsProvider, DnsRecordSet } from './dns-provider';

/**
 * The embedded default (DNS_PROVIDER unset): zones in this process's memory, served to nobody.
 * The API keeps every zone and record in its database, so the routes answer as with PowerDNS; a
 * restart forgets only this copy.
 */
export class SimulatedDnsProvider extends DnsProvider {
  readonly kind = 'simulator' as const;
  private readonly zones = new Map<string, Map<string, DnsRecordSet>>();

  async createZone(zone: string, nameservers: string[], soa: DnsRecordSet): Promise<void> {
    const sets = new Map<string, DnsRecordSet>();
    sets.set(`${zone} SOA`, soa);
    sets.set(`${zone} NS`, { name: zone, type: 'NS', ttl: soa.ttl, contents: nameservers.map((ns) => `${ns}.`) });
    this.zones.set(zone, sets);
  }

  async deleteZone(zone: string): Promise<void> {
    this.zones.delete(zone);
  }

  async replaceRecordSets(zone: string, sets: DnsRecordSet[]): Promise<void> {
    const held = this.zones.get(zone);
    if (!held) return;
    for (const set of sets) {
      const key = `${set.name} ${set.type}`;
      if (set.contents.length) held.set(key, { ...set, contents: [...set.contents] });
      else held.delete(key);
    }
  }

  async listZones(): Promise<string[]> {
    return [...this.zones.keys()];
  }

  async recordSets(zone: string): Promise<DnsRecordSet[] | null> {
    const held = this.zones.get(zone);
    return held ? [...held.values()] : null;
  }

  async reachable(): Promise<boolean> {
    return true;
  }
}
