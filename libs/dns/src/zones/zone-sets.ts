import type { DnsRecordSet } from '../provider/dns-provider';
import type { DnsRecordData } from '../records/dns-record';
import { rdataOf } from '../records/record-rules';

export const SOA_TIMERS = { refresh: 10_800, retry: 3600, expire: 604_800, minimum: 3600 };
const SOA_TTL = 3600;

/** `@` -> `example.com.`, `www` -> `www.example.com.` (zone without the trailing dot). */
export function absoluteName(zone: string, name: string): string {
  return name === '@' ? `${zone}.` : `${name}.${zone}.`;
}

/** The SOA's fields: the first nameserver as primary, `hostmaster` at its domain as the contact. */
export function soaOf(nameservers: string[], serial: number) {
  const primary = nameservers[0];
  const domain = primary.split('.').length > 2 ? primary.slice(primary.indexOf('.') + 1) : primary;
  return { primary: `${primary}.`, hostmaster: `hostmaster.${domain}.`, serial, ...SOA_TIMERS };
}

export function soaSet(zone: string, nameservers: string[], serial: number): DnsRecordSet {
  const soa = soaOf(nameservers, serial);
  const content = `${soa.primary} ${soa.hostmaster} ${serial} ${soa.refresh} ${soa.retry} ${soa.expire} ${soa.minimum}`;
  return { name: `${zone}.`, type: 'SOA', ttl: SOA_TTL, contents: [content] };
}

/** The next serial, as PowerDNS's own DEFAULT would make it: today's YYYYMMDD01, or one more than now if that is higher. */
export function nextSerial(current: number, now = new Date()): number {
  const today = Number(now.toISOString().slice(0, 10).replace(/-/g, '')) * 100 + 1;
  return Math.max(today, current + 1);
}

const keyOf = (record: Pick<DnsRecordData, 'name' | 'type'>) => `${record.name} ${record.type}`;

/**
 * The RRsets a change touches, as they are after it: every name and type held before or after
 * whose records differ; a set left without records is sent empty (deleted).
 */
export function changedSets(zone: string, before: DnsRecordData[], after: DnsRecordData[]): DnsRecordSet[] {
  const group = (records: DnsRecordData[]) => {
    const sets = new Map<string, DnsRecordData[]>();
    for (const record of records) sets.set(keyOf(record), [...(sets.get(keyOf(record)) ?? []), record]);
    return sets;
  };
  const old = group(before);
  const now = group(after);
  const sets: DnsRecordSet[] = [];
  for (const key of new Set([...old.keys(), ...now.keys()])) {
    const records = now.get(key) ?? [];
    const was = old.get(key) ?? [];
    const contents = records.map((record) => rdataOf(zone, record));
    const same =
      was.length === records.length &&
      was.every((record) => record.ttl === records[0].ttl) &&
      contents.every((content) => was.some((record) => rdataOf(zone, record) === content));
    if (same) continue;
    const [name, type] = key.split(' ');
    sets.push({ name: absoluteName(zone, name), type: type as DnsRecordSet['type'], ttl: records[0]?.ttl ?? 0, contents });
  }
  return sets;
}
