import { dnsZoneName, HostingClient, listAll, Schemas } from '@hosting-account/sdk';
import { pickRef, RefKind, resolveRef } from './ref';

type Zone = Pick<Schemas['ZoneResponse'], 'id' | 'name'>;

/** A zone answers to its domain in any spelling: `Example.COM.` and `bücher.example` too. */
const ZONE: RefKind<Zone> = { kind: 'DNS zone', listedBy: 'hostctl dns zones list', normalise: dnsZoneName, names: (z) => [z.name] };

/** The id of the zone a command names: an id as it is, or the zone's name (`example.com`, any case, a trailing dot or not). */
export async function resolveZoneId(api: HostingClient, reference: string): Promise<string> {
  return resolveRef(reference, () => listAll(api, '/api/dns/zones'), ZONE);
}

/** A zone's name is unique in the installation, so a name is never ambiguous. */
export function pickZone(zones: Zone[], name: string): string {
  return pickRef(zones, name, ZONE);
}
