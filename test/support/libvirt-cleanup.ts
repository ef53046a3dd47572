import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** virsh on one connection: its arguments after `-c <uri>`. */
export type Virsh = (...args: string[]) => Promise<string>;

/** A virsh call its timeout ended: libvirtd may still carry it out afterwards (seen 20 s later under load). */
export class VirshTimeout extends Error {}

export interface CleanupTiming {
  /** How long after a creation timed out its absence is not believed, and how long a removal tries. */
  settleMs: number;
  pollMs: number;
}

export const CLEANUP_TIMING: CleanupTiming = { settleMs: 60_000, pollMs: 1_000 };

interface Target {
  kind: 'domain' | 'volume';
  name: string;
  pool?: string;
}

/**
 * Creations not known to be over, by connection and target: in flight (`timedOutAt` unset, a hook
 * that timed out may leave one running) or ended by their timeout.
 */
const unsettled = new Map<string, { connection: string; target: Target; timedOutAt?: number }>();
/** What cleanup could not remove, reported by `failOnLeftovers` once the file's cleanup is over. */
const leftovers: string[] = [];
const keyOf = (connection: string, { kind, pool, name }: Target) => `${connection} ${kind} ${pool ?? ''} ${name}`;

/** virsh on `uri`; what it creates is followed until the call is over (`remembering`). */
export function virshOnUri(uri: string, timeoutMs: number, command = 'virsh'): Virsh {
  const run: Virsh = (...args) =>
    new Promise((resolve, reject) =>
      execFile(command, ['-q', '-c', uri, ...args], { timeout: timeoutMs }, (err, stdout, stderr) => {
        if (!err) return resolve(stdout.trim());
        const message = `virsh ${args.join(' ')}: ${stderr || err.message}`;
        reject(err.killed ? new VirshTimeout(`${message} (timed out after ${timeoutMs} ms)`) : new Error(message));
      }),
    );
  return remembering(run, uri);
}

/** `run`, following each creation (define, create, vol-create-as, vol-create) until it is known to be over. */
export function remembering(run: Virsh, connection: string): Virsh {
  return async (...args) => {
    const target = creationTarget(args);
    const key = target && keyOf(connection, target);
    if (key) unsettled.set(key, { connection, target });
    try {
      const out = await run(...args);
      if (key) unsettled.delete(key);
      return out;
    } catch (err) {
      if (key && err instanceof VirshTimeout) unsettled.set(key, { connection, target, timedOutAt: Date.now() });
      else if (key) unsettled.delete(key);
      throw err;
    }
  };
}

const VALUE_OPTIONS = new Set([
  '--pool',
  '--name',
  '--capacity',
  '--allocation',
  '--format',
  '--backing-vol',
  '--backing-vol-format',
  '--file',
]);

/** What a virsh command creates, if it creates a domain or a volume. */
export function creationTarget(args: string[], read = (file: string) => readFileSync(file, 'utf8')): Target | undefined {
  const [command, ...rest] = args;
  if (!['define', 'create', 'vol-create-as', 'vol-create'].includes(command)) return undefined;
  const options = new Map<string, string>();
  const positional: string[] = [];
  for (let i = 0; i < rest.length; i++) {
    if (VALUE_OPTIONS.has(rest[i])) options.set(rest[i].slice(2), rest[++i]);
    else if (!rest[i].startsWith('--')) positional.push(rest[i]);
  }
  // virsh fills the arguments not given as options from the positional ones, in order.
  const order = { define: ['file'], create: ['file'], 'vol-create-as': ['pool', 'name'], 'vol-create': ['pool', 'file'] }[command]!;
  for (const option of order) if (!options.has(option) && positional.length) options.set(option, positional.shift()!);
  const file = options.get('file');
  const name = options.get('name') ?? (file ? nameInXml(file, read) : undefined);
  if (!name) return undefined;
  return command.startsWith('vol-') ? { kind: 'volume', name, pool: options.get('pool') } : { kind: 'domain', name };
}

/** The `<name>` of a domain or volume XML file; none if it cannot be read (virsh then says why). */
function nameInXml(file: string, read: (file: string) => string): string | undefined {
  try {
    return /<name>([^<]+)<\/name>/.exec(read(file))?.[1]?.trim();
  } catch {
    return undefined;
  }
}

const succeeds = (call: Promise<unknown>) =>
  call.then(
    () => true,
    () => false,
  );

/** Powers off and undefines a domain, until libvirt says it does not exist (see `removeUntilGone`). */
export function removeDomainWith(virsh: Virsh, connection: string, domain: string, timing = CLEANUP_TIMING): Promise<void> {
  return removeUntilGone(
    connection,
    { kind: 'domain', name: domain },
    async () => {
      const destroyed = await succeeds(virsh('destroy', domain));
      return (await succeeds(virsh('undefine', domain, '--managed-save', '--snapshots-metadata'))) || destroyed;
    },
    () => virsh('dominfo', domain),
    timing,
  );
}

/** Deletes a volume of `pool`, until libvirt says it does not exist (see `removeUntilGone`). */
export function removeVolumeWith(virsh: Virsh, connection: string, pool: string, volume: string, timing = CLEANUP_TIMING): Promise<void> {
  return removeUntilGone(
    connection,
    { kind: 'volume', name: volume, pool },
    () => succeeds(virsh('vol-delete', '--pool', pool, volume)),
    () => virsh('vol-info', '--pool', pool, volume),
    timing,
  );
}

/** Removes what was created on `connection` by calls not known to be over, which the test's own cleanup did not settle. */
export async function removeUnsettled(virsh: Virsh, connection: string, timing = CLEANUP_TIMING): Promise<void> {
  for (const { connection: on, target } of [...unsettled.values()]) {
    if (on !== connection) continue;
    if (target.kind === 'domain') await removeDomainWith(virsh, connection, target.name, timing);
    else await removeVolumeWith(virsh, connection, target.pool ?? 'default', target.name, timing);
  }
}

/** Throws, naming them, if cleanup could not remove something; forgets them. */
export function failOnLeftovers(): void {
  const left = leftovers.splice(0);
  if (left.length) throw new Error(`libvirt cleanup left behind:\n${left.join('\n')}`);
}

const NOT_FOUND = /failed to get (domain|vol|pool) /;

/**
 * Removes, then asks libvirt whether the thing still exists, and again until it says it does not.
 * While a call that creates it is not over, and until `settleMs` after such a call timed out, a
 * "does not exist" is not believed: libvirtd may still carry the creation out. Once something was
 * removed, the creation has landed and that wait ends. What is still there (or what libvirt cannot
 * tell about) after `settleMs` is a leftover, reported by `failOnLeftovers`, so the rest of the
 * cleanup still runs.
 */
async function removeUntilGone(
  connection: string,
  target: Target,
  remove: () => Promise<boolean>,
  info: () => Promise<unknown>,
  { settleMs, pollMs }: CleanupTiming,
): Promise<void> {
  const key = keyOf(connection, target);
  const start = Date.now();
  let last = '';
  for (;;) {
    if ((await remove()) && unsettled.get(key)?.timedOutAt !== undefined) unsettled.delete(key);
    const exists = await info().then(
      () => true,
      (err: Error) => (NOT_FOUND.test(err.message) ? false : ((last = err.message), undefined)),
    );
    const pending = unsettled.get(key);
    const settledAt = pending ? (pending.timedOutAt ?? Infinity) + settleMs : 0;
    if (exists === false && Date.now() >= settledAt) {
      unsettled.delete(key);
      return;
    }
    if (exists) last = 'it still exists';
    if (Date.now() >= Math.max(start + settleMs, settledAt)) {
      unsettled.delete(key);
      leftovers.push(`${target.kind} ${target.name} on ${connection}: ${last}`);
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}
