import { HostingClient, listAll, Schemas } from '@hosting-account/sdk';
import { pickRef, RefKind, resolveRef } from './ref';

type Firewall = Pick<Schemas['FirewallResponse'], 'id' | 'name'>;

const FIREWALL: RefKind<Firewall> = { kind: 'firewall', listedBy: 'hostctl firewall list', names: (f) => [f.name] };

/** The id of the firewall a command names: an id as it is, or the name (unique in the account). */
export async function resolveFirewallId(api: HostingClient, reference: string): Promise<string> {
  return resolveRef(reference, () => listAll(api, '/api/firewalls'), FIREWALL);
}

export function pickFirewall(firewalls: Firewall[], name: string): string {
  return pickRef(firewalls, name, FIREWALL);
}
