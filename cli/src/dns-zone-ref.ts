import { dnsZoneName, HostingClient, listAll, Schemas } from '@hosting-account/sdk';
import { NotFoundError } from './errors';
import { UUID } from './service-ref';

type Zone = Pick<Schemas['ZoneResponse'], 'id' | 'name'>;

/** The id of the zone a command names: an id as it is, or the zone's name (`example.com`, any case, a trailing dot or not). */
export async function resolveZoneId(api: HostingClient, reference: string): Promise<string> {
  if (UUID.test(reference)) return reference;
  return pickZone(await listAll(api, '/api/dns/zones'), reference);
}

/** A zone's name is unique in the installation, so a name is never ambiguous. */
export function pickZone(zones: Zone[], name: string): string {
  const wanted = dnsZoneName(name);
  const found = zones.find((z) => z.name === wanted);
  if (!found) throw new NotFoundError(`no DNS zone named "${name}" in this account ("hostctl dns zones list" shows names and ids)`);
  return found.id;
}
