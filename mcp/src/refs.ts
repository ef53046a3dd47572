import { z } from 'zod';
import { dnsZoneName, type HostingClient, listAll } from '@hosting-account/sdk';
import type { HostingTool } from './tool';
import { ToolFailure } from './errors';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

interface Named {
  id: string;
  /** The names it answers to besides its id. */
  names: (string | null | undefined)[];
  /** Kept when several match and it is the only preferred one (a service not terminated). */
  preferred?: boolean;
}

interface Kind {
  /** `VPS`, `SSH key`: in the errors. */
  kind: string;
  /** The tool that lists them with their names and ids. */
  listedBy: string;
  list(api: HostingClient): Promise<Named[]>;
  /** The name as the list spells it (a domain in lower case with no trailing dot, a reference in upper case). */
  normalise?: (value: string) => string;
}

const services = (type?: 'vps' | 'volume') => async (api: HostingClient) =>
  (await listAll(api, '/api/services', type ? { type } : {})).map((s) => ({
    id: s.id,
    names: [s.name],
    preferred: s.status !== 'terminated',
  }));

/** Every kind of thing a tool takes by id, and what else it answers to (as hostctl resolves them). */
const KINDS = {
  service: { kind: 'service', listedBy: 'services_list', list: services() },
  vps: { kind: 'VPS', listedBy: 'services_list', list: services('vps') },
  volume: { kind: 'volume', listedBy: 'volumes_list', list: services('volume') },
  firewall: {
    kind: 'firewall',
    listedBy: 'firewalls_list',
    list: async (api) => (await listAll(api, '/api/firewalls')).map((f) => ({ id: f.id, names: [f.name] })),
  },
  zone: {
    kind: 'DNS zone',
    listedBy: 'dns_zones_list',
    list: async (api) => (await listAll(api, '/api/dns/zones')).map((z) => ({ id: z.id, names: [z.name] })),
    normalise: dnsZoneName,
  },
  sshKey: {
    kind: 'SSH key',
    listedBy: 'ssh_keys_list',
    list: async (api) => (await listAll(api, '/api/ssh-keys')).map((k) => ({ id: k.id, names: [k.name, k.fingerprint] })),
  },
  ticket: {
    kind: 'ticket',
    listedBy: 'tickets_list',
    list: async (api) => (await listAll(api, '/api/support/tickets')).map((t) => ({ id: t.id, names: [t.reference] })),
    normalise: (value) => value.toUpperCase(),
  },
  snapshot: {
    kind: 'snapshot',
    listedBy: 'images_list',
    list: async (api) =>
      (await listAll(api, '/api/images')).filter((i) => i.type === 'snapshot').map((i) => ({ id: i.id, names: [i.slug, i.name] })),
  },
  webhook: {
    kind: 'webhook',
    listedBy: 'webhooks_list',
    list: async (api) => (await listAll(api, '/api/webhooks')).map((w) => ({ id: w.id, names: [w.description] })),
  },
} satisfies Record<string, Kind>;

export type RefKind = keyof typeof KINDS;

const REFS = new WeakMap<z.ZodType, RefKind>();

/**
 * An input that takes an id, or a name (a reference, a slug) of the kind: the tool gets the id. The
 * field keeps its name (`serviceId`, `ticketId`), so that calls made with ids still work.
 */
export function ref(kind: RefKind, what: string): z.ZodString {
  const schema = z.string().min(1).max(255).describe(`${what}, or its ${NAMED[kind]}`);
  REFS.set(schema, kind);
  return schema;
}

const NAMED: Record<RefKind, string> = {
  service: 'name',
  vps: 'name',
  volume: 'name',
  firewall: 'name',
  zone: 'domain',
  sshKey: 'name or fingerprint',
  ticket: 'reference (T-000001)',
  snapshot: 'name or slug',
  webhook: 'description',
};

/** The id a name stands for: no match is `not_found`, several `ambiguous_name` with their ids (give one). */
export function pickRef(items: Named[], value: string, kind: RefKind): string {
  if (UUID.test(value)) return value;
  const { kind: what, listedBy, normalise } = KINDS[kind] as Kind;
  const name = normalise ? normalise(value) : value;
  const found = items.filter((item) => item.names.includes(name));
  const preferred = found.length > 1 ? found.filter((item) => item.preferred) : found;
  if (preferred.length === 1) return preferred[0].id;
  if (found.length === 0) throw new ToolFailure('not_found', `No ${what} of this account is named so; ${listedBy} lists names and ids.`);
  throw new ToolFailure(
    'ambiguous_name',
    `${found.length} ${what}s have this name: ${found.map((i) => i.id).join(', ')}; give the id instead.`,
  );
}

/** The kind of a tool's input field, through `.optional()` and arrays. */
function kindOf(schema: z.ZodType): { kind: RefKind; many: boolean } | undefined {
  let inner = schema;
  if (inner instanceof z.ZodOptional) inner = inner.unwrap() as z.ZodType;
  const many = inner instanceof z.ZodArray;
  if (many) inner = (inner as z.ZodArray<z.ZodType>).element;
  const kind = REFS.get(inner);
  return kind ? { kind, many } : undefined;
}

/** The tool's arguments with every name resolved to its id (a list's ids once each); each kind's list read once at most. */
export async function resolveRefs(tool: HostingTool, args: Record<string, unknown>, api: HostingClient): Promise<Record<string, unknown>> {
  const resolved = { ...args };
  const lists = new Map<RefKind, Promise<Named[]>>();
  const one = async (kind: RefKind, value: string) => {
    if (UUID.test(value)) return value;
    if (!lists.has(kind)) lists.set(kind, KINDS[kind].list(api));
    return pickRef(await lists.get(kind)!, value, kind);
  };
  for (const [field, schema] of Object.entries(tool.input)) {
    const found = kindOf(schema as z.ZodType);
    const value = args[field];
    if (!found || value === undefined) continue;
    resolved[field] = found.many
      ? [...new Set(await Promise.all((value as string[]).map((v) => one(found.kind, v))))]
      : await one(found.kind, value as string);
  }
  return resolved;
}
