import { DEFAULT_TTL } from '../records/dns-record';
import type { DnsRecordData } from '../records/dns-record';
import { rdataOf } from '../records/record-rules';

export interface ZoneFileSoa {
  primary: string;
  /** `hostmaster.example.com.` or `hostmaster@example.com`. */
  hostmaster: string;
  serial: number;
  refresh: number;
  retry: number;
  expire: number;
  minimum: number;
}

/** The zone in BIND's format: names relative to `$ORIGIN`, the apex first, one record a line. */
export function formatZoneFile(zone: string, soa: ZoneFileSoa, nameservers: string[], records: DnsRecordData[]): string {
  const soaData = [absolute(soa.primary), mailbox(soa.hostmaster), soa.serial, soa.refresh, soa.retry, soa.expire, soa.minimum].join(' ');
  const rows = [
    ['@', String(DEFAULT_TTL), 'IN', 'SOA', soaData],
    ...nameservers.map((nameserver) => ['@', String(DEFAULT_TTL), 'IN', 'NS', absolute(nameserver)]),
    ...[...records].sort(byZoneFileOrder).map((record) => [record.name, String(record.ttl), 'IN', record.type, rdataOf(zone, record)]),
  ];
  const widths = [0, 1, 2, 3].map((column) => Math.max(...rows.map((row) => row[column].length)));
  const lines = rows.map((row) => row.map((cell, column) => (column < widths.length ? cell.padEnd(widths[column]) : cell)).join('  '));
  return [`$ORIGIN ${zone}.`, `$TTL ${DEFAULT_TTL}`, ...lines, ''].join('\n');
}

function byZoneFileOrder(a: DnsRecordData, b: DnsRecordData): number {
  const apexFirst = Number(a.name !== '@') - Number(b.name !== '@');
  return (
    apexFirst ||
    compareText(a.name, b.name) ||
    compareText(a.type, b.type) ||
    (a.priority ?? 0) - (b.priority ?? 0) ||
    (a.weight ?? 0) - (b.weight ?? 0) ||
    (a.port ?? 0) - (b.port ?? 0) ||
    compareText(a.value, b.value)
  );
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function absolute(name: string): string {
  return name.endsWith('.') ? name : `${name}.`;
}

/** RFC 1035 writes the mailbox `host.master@example.com` as `host\.master.example.com.`. */
function mailbox(address: string): string {
  const at = address.lastIndexOf('@');
  if (at < 0) return absolute(address);
  return absolute(`${address.slice(0, at).replace(/\./g, '\\.')}.${address.slice(at + 1)}`);
}
