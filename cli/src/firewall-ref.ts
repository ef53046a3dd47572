import { HostingClient, listAll, Schemas } from '@hosting-account/sdk';
import { NotFoundError } from './errors';
import { UUID } from './service-ref';

type Firewall = Pick<Schemas['FirewallResponse'], 'id' | 'name'>;

/** The id of the firewall a command names: an id as it is, or the name (unique in the account). */
export async function resolveFirewallId(api: HostingClient, reference: string): Promise<string> {
  if (UUID.test(reference)) return reference;
  return pickFirewall(await listAll(api, '/api/firewalls'), reference);
}

export function pickFirewall(firewalls: Firewall[], name: string): string {
  const found = firewalls.find((f) => f.name === name);
  if (!found) throw new NotFoundError(`no firewall named "${name}" in this account ("hostctl firewall list" shows names and ids)`);
  return found.id;
}
