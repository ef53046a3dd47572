import type { HostingClient } from './client';
import { unwrap } from './errors';
import { listAll } from './pagination';
import type { components } from './schema';

/** A DNS zone: `{id, name, nameservers, serial, createdAt}`; `name` lower case, without the trailing dot, IDN in punycode. */
export type DnsZone = components['schemas']['ZoneResponse'];
/** A record: `{id, name (relative, @ the zone), type, ttl, value, priority, weight, port}`. */
export type DnsRecord = components['schemas']['RecordResponse'];
/** A record as sent to `POST /api/dns/zones/{id}/records`. */
export type NewDnsRecord = components['schemas']['CreateRecordRequest'];
/** The fields of a record to change (`PATCH .../records/{recordId}` merges them over the stored record). */
export type DnsRecordChange = components['schemas']['UpdateRecordRequest'];

/**
 * A zone name as the API stores it: lower case, no trailing dot, an internationalised name in
 * punycode (`bücher.example` is `xn--bcher-kva.example`), so a name is found however it is written.
 */
export function dnsZoneName(name: string): string {
  const trimmed = name.trim().replace(/\.$/, '');
  if (/^[\x00-\x7f]*$/.test(trimmed)) return trimmed.toLowerCase();
  try {
    return new URL(`http://${trimmed}/`).hostname;
  } catch {
    return trimmed.toLowerCase();
  }
}

/**
 * The account's zone of that name (any case, trailing dot or not), or undefined. Zones are listed
 * (every page): the API has no lookup by name.
 *
 *     const zone = await findDnsZone(client, 'example.com');
 */
export async function findDnsZone(client: HostingClient, name: string): Promise<DnsZone | undefined> {
  const wanted = dnsZoneName(name);
  return (await listAll(client, '/api/dns/zones')).find((zone) => zone.name === wanted);
}

/**
 * The zone as a BIND zone file (`GET /api/dns/zones/{id}/export`, `text/plain`): the typed client
 * would parse the answer as JSON, so this reads it as text. Throws `HostingApiError` for an error answer.
 *
 *     writeFileSync('example.com.zone', await exportDnsZone(client, zone.id));
 */
export async function exportDnsZone(client: HostingClient, zoneId: string, signal?: AbortSignal): Promise<string> {
  return unwrap(
    client.GET('/api/dns/zones/{id}/export', {
      params: { path: { id: zoneId } },
      parseAs: 'text',
      headers: { Accept: 'text/plain, application/problem+json' },
      signal,
    }),
  );
}

/**
 * Replaces every record of the zone by those of a BIND zone file (`POST /api/dns/zones/{id}/import`)
 * and returns the zone (its new serial). All or nothing: a 400 names each refused line in
 * `error.errors` (`field: 'line 12'`). The typed client would send a string as JSON; this sends it
 * as it is, as `text/plain`. Safe to retry (the SDK does after a 503): the same file gives the same zone.
 *
 *     await importDnsZone(client, zone.id, readFileSync('example.com.zone', 'utf8'));
 */
export async function importDnsZone(client: HostingClient, zoneId: string, zoneFile: string, signal?: AbortSignal): Promise<DnsZone> {
  return unwrap(
    client.POST('/api/dns/zones/{id}/import', {
      params: { path: { id: zoneId } },
      body: zoneFile,
      bodySerializer: (body: string) => body,
      headers: { 'Content-Type': 'text/plain; charset=utf-8' },
      signal,
    }),
  );
}
