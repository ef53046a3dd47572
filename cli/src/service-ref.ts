import { HostingClient, listAll, Schemas } from '@hosting-account/sdk';
import { pickRef, UUID } from './ref';

type Service = Schemas['ServiceResponse'];
type ServiceType = Service['type'];

export { UUID } from './ref';
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
  return pickRef(services, name, {
    kind: KIND[type ?? 'any'],
    plural: 'services',
    listedBy: 'hostctl services list',
    names: (s) => [s.name],
    describe: (s) => `${s.type}, ${s.status}`,
    prefer: (s) => s.status !== 'terminated',
  });
}

/** The account's VPS names by id, to say which VPS something is on; ids alone when they cannot be read. */
export async function vpsNames(api: HostingClient): Promise<Map<string, string>> {
  const services = await listAll(api, '/api/services', { type: 'vps' }).catch(() => []);
  return new Map(services.map((s) => [s.id, s.name]));
}
