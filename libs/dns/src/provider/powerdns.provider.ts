import { DnsProvider, DnsRecordSet, DnsRejected, DnsUnavailable, DnsZoneHeld } from './dns-provider';
import { PowerDnsClient, PowerDnsOptions, PowerDnsStatus, zoneId } from './powerdns-client';

export type { PowerDnsOptions } from './powerdns-client';

/** The `account` of every zone the API makes: it never reads, replaces or deletes a zone without it. */
export const ZONE_ACCOUNT = 'hosting-api';

interface PowerDnsRrset {
  name: string;
  type: string;
  ttl: number;
  records: { content: string; disabled: boolean }[];
}

/**
 * PowerDNS Authoritative through its HTTP API. Zones are `Native` (no notify, no transfers: the
 * servers share one database) with `soa_edit_api` and `soa_edit` empty, so the server keeps the
 * API's SOA serial as given. Each change is one PATCH, which PowerDNS applies in one transaction.
 */
export class PowerDnsProvider extends DnsProvider {
  readonly kind = 'powerdns' as const;
  private readonly client: PowerDnsClient;

  constructor(options: PowerDnsOptions) {
    super();
    this.client = new PowerDnsClient(options);
  }

  async createZone(zone: string, nameservers: string[], soa: DnsRecordSet): Promise<void> {
    const body = {
      name: zone,
      kind: 'Native',
      account: ZONE_ACCOUNT,
      // PowerDNS refuses `nameservers` together with apex NS in rrsets (422 "MUST NOT be mixed").
      nameservers: [],
      soa_edit_api: '',
      soa_edit: '',
      rrsets: [
        { name: zone, type: 'SOA', ttl: soa.ttl, records: soa.contents.map(record) },
        { name: zone, type: 'NS', ttl: soa.ttl, records: nameservers.map((ns) => record(absolute(ns))) },
      ],
    };
    const create = () => this.client.call({ method: 'POST', path: '/zones', body, doing: `creating zone ${zone}` });
    try {
      await create();
    } catch (err) {
      if (!(err instanceof PowerDnsStatus && err.status === 409)) throw unexpected(err, `creating zone ${zone}`);
      // Ours, left over from an earlier create whose record was never committed: replaced.
      if ((await this.accountOf(zone)) !== ZONE_ACCOUNT) throw new DnsZoneHeld(zone);
      await this.deleteZone(zone);
      await create().catch((again) => Promise.reject(unexpected(again, `creating zone ${zone}`)));
    }
  }

  async deleteZone(zone: string): Promise<void> {
    if ((await this.accountOf(zone)) !== ZONE_ACCOUNT) return;
    try {
      await this.client.call({ method: 'DELETE', path: `/zones/${zoneId(zone)}`, doing: `deleting zone ${zone}` });
    } catch (err) {
      if (err instanceof PowerDnsStatus && err.status === 404) return;
      if (err instanceof DnsRejected && /not found/i.test(err.message)) return;
      throw unexpected(err, `deleting zone ${zone}`);
    }
  }

  async replaceRecordSets(zone: string, sets: DnsRecordSet[]): Promise<void> {
    if (!sets.length) return;
    const rrsets = sets.map((set) =>
      set.contents.length
        ? { name: set.name, type: set.type, ttl: set.ttl, changetype: 'REPLACE', records: set.contents.map(record) }
        : { name: set.name, type: set.type, changetype: 'DELETE' },
    );
    const doing = `changing ${sets.length} record sets of zone ${zone}`;
    await this.client.call({ method: 'PATCH', path: `/zones/${zoneId(zone)}`, body: { rrsets }, doing }).catch((err) => {
      throw unexpected(err, doing);
    });
  }

  async listZones(): Promise<string[]> {
    const zones = await this.client
      .call<{ name: string; account?: string }[]>({ method: 'GET', path: '/zones', doing: 'listing zones' })
      .catch((err) => {
        throw unexpected(err, 'listing zones');
      });
    return (zones ?? []).filter((z) => z.account === ZONE_ACCOUNT).map((z) => z.name);
  }

  async recordSets(zone: string): Promise<DnsRecordSet[] | null> {
    try {
      const held = await this.client.call<{ rrsets: PowerDnsRrset[] }>({
        method: 'GET',
        path: `/zones/${zoneId(zone)}`,
        doing: `reading zone ${zone}`,
      });
      return (held?.rrsets ?? []).map((set) => ({
        name: set.name,
        type: set.type as DnsRecordSet['type'],
        ttl: set.ttl,
        contents: set.records.filter((r) => !r.disabled).map((r) => r.content),
      }));
    } catch (err) {
      if (err instanceof PowerDnsStatus && err.status === 404) return null;
      throw unexpected(err, `reading zone ${zone}`);
    }
  }

  /** The zone's `account`, or null when the server has no such zone. */
  private async accountOf(zone: string): Promise<string | null> {
    try {
      const held = await this.client.call<{ account?: string }>({
        method: 'GET',
        path: `/zones/${zoneId(zone)}`,
        doing: `reading zone ${zone}`,
      });
      return held?.account ?? '';
    } catch (err) {
      if (err instanceof PowerDnsStatus && err.status === 404) return null;
      throw unexpected(err, `reading zone ${zone}`);
    }
  }

  async reachable(): Promise<boolean> {
    try {
      await this.client.call({ method: 'GET', path: '', doing: 'reading the server' });
      return true;
    } catch {
      return false;
    }
  }
}

const record = (content: string) => ({ content, disabled: false });
const absolute = (name: string) => (name.endsWith('.') ? name : `${name}.`);

/** DnsUnavailable and DnsRejected pass; an unexpected 4xx (a 404 for a zone the server lost) is an outage of the zone. */
function unexpected(err: unknown, doing: string): Error {
  if (err instanceof PowerDnsStatus) return new DnsUnavailable(`PowerDNS answered ${err.status} ${doing}`);
  return err as Error;
}
