import { HostingClient, listAll, Schemas } from '@hosting-account/sdk';
import { NotFoundError, UsageError } from './errors';

type Service = Schemas['ServiceResponse'];
type ServiceType = Service['type'];

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const KIND: Record<ServiceType | 'any', string> = {
  vps: 'VPS',
  object_storage: 'object storage service',
  volume: 'volume',
  any: 'service',
};

/**
 * The id of the service a command names: an id as it is, or a name that one service of the
 * account has (as hcloud and doctl take names). A terminated service keeps its name, so when a name
 * is on several services the one not terminated is meant; otherwise the id must be given.
 */
export async function resolveServiceId(api: HostingClient, reference: string, type?: ServiceType): Promise<string> {
  if (UUID.test(reference)) return reference;
  const services = await listAll(api, '/api/services', type ? { type } : {});
  return pickByName(services, reference, type);
}

/** The ids of several services named on one command line, the account's services listed once at most. */
export async function resolveServiceIds(api: HostingClient, references: string[], type?: ServiceType): Promise<string[]> {
  if (references.every((reference) => UUID.test(reference))) return references;
  const services = await listAll(api, '/api/services', type ? { type } : {});
  return references.map((reference) => (UUID.test(reference) ? reference : pickByName(services, reference, type)));
}

export function pickByName(services: Pick<Service, 'id' | 'name' | 'type' | 'status'>[], name: string, type?: ServiceType): string {
  const kind = KIND[type ?? 'any'];
  const named = services.filter((s) => s.name === name);
  const live = named.length > 1 ? named.filter((s) => s.status !== 'terminated') : named;
  if (live.length === 1) return live[0].id;
  if (named.length === 0) {
    throw new NotFoundError(`no ${kind} named "${name}" in this account ("hostctl services list" shows names and ids)`);
  }
  const listed = named.map((s) => `${s.id} (${s.type}, ${s.status})`).join(', ');
  throw new UsageError(`${named.length} services are named "${name}": ${listed}; give the id instead`);
}

/** The account's VPS names by id, to say which VPS something is on; ids alone when they cannot be read. */
export async function vpsNames(api: HostingClient): Promise<Map<string, string>> {
  const services = await listAll(api, '/api/services', { type: 'vps' }).catch(() => []);
  return new Map(services.map((s) => [s.id, s.name]));
}
