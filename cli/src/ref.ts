import { NotFoundError, UsageError } from './errors';

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** What a resolver needs to know of a kind of thing: how it is called and where its names are listed. */
export interface RefKind<T extends { id: string }> {
  /** `SSH key`, `ticket`, `image`: in the errors. */
  kind: string;
  /** The command that lists them with their names and ids: `hostctl ssh-keys list`. */
  listedBy: string;
  /** The name as `names` spell it (a domain in lower case with no final dot, a reference in upper case). */
  normalise?: (reference: string) => string;
  /** The names a thing answers to besides its id (a name, a reference, a slug). */
  names: (item: T) => (string | null | undefined)[];
  /** How one is told apart in the "several match" error; its id alone when absent. */
  describe?: (item: T) => string;
  /** When several match, the one this holds for is meant if it is the only one (a service not terminated). */
  prefer?: (item: T) => boolean;
  /** The plural in the "several match" error; `<kind>s` when absent. */
  plural?: string;
  /** Where names are looked for, in the "nothing matches" error; `in this account` when absent. */
  among?: string;
}

/**
 * The id of the thing a command names: an id as it is (not looked up), or one of the names the
 * kind gives its things. No match is a NotFoundError (exit 1, like the API's 404); several are a
 * UsageError (exit 2) listing them, as the id must then be given.
 */
export function pickRef<T extends { id: string }>(items: T[], reference: string, spec: RefKind<T>): string {
  if (UUID.test(reference)) return reference;
  const name = spec.normalise ? spec.normalise(reference) : reference;
  const found = items.filter((item) => spec.names(item).includes(name));
  const preferred = found.length > 1 && spec.prefer ? found.filter(spec.prefer) : found;
  if (preferred.length === 1) return preferred[0].id;
  if (found.length === 0)
    throw new NotFoundError(
      `no ${spec.kind} named "${reference}" ${spec.among ?? 'in this account'} ("${spec.listedBy}" shows names and ids)`,
    );
  const listed = found.map((item) => (spec.describe ? `${item.id} (${spec.describe(item)})` : item.id)).join(', ');
  throw new UsageError(`${found.length} ${spec.plural ?? `${spec.kind}s`} are named "${reference}": ${listed}; give the id instead`);
}

/** pickRef over a list read only when the reference is not an id already. */
export async function resolveRef<T extends { id: string }>(reference: string, list: () => Promise<T[]>, spec: RefKind<T>): Promise<string> {
  if (UUID.test(reference)) return reference;
  return pickRef(await list(), reference, spec);
}

/** The thing itself, from a list the caller read: by one of its names, or by an id that must be in the list. */
export function findRef<T extends { id: string }>(items: T[], reference: string, spec: RefKind<T>): T {
  const id = pickRef(items, reference, spec);
  const item = items.find((i) => i.id === id);
  if (!item)
    throw new NotFoundError(`no ${spec.kind} ${reference} ${spec.among ?? 'in this account'} ("${spec.listedBy}" shows names and ids)`);
  return item;
}
