import type { ClientBase, Pool } from 'pg';

/** Per watched pool, each checked-out connection and when it was checked out (ms since the epoch). */
const watched = new Map<Pool, Map<ClientBase, number>>();
const lastStatements = new WeakMap<ClientBase, string>();

/** Remembers, from now on, which of the pool's connections are checked out and since when. */
export function watchPool(pool: Pool): void {
  if (watched.has(pool)) return;
  const holds = new Map<ClientBase, number>();
  watched.set(pool, holds);
  pool.on('acquire', (client) => holds.set(client, Date.now()));
  pool.on('release', (_err, client) => holds.delete(client));
  pool.on('remove', (client) => holds.delete(client));
}

export function unwatchPool(pool: Pool): void {
  watched.delete(pool);
}

/** Keeps the text of the connection's latest statement, for poolPressure(). */
export function trackStatements(client: ClientBase): void {
  const query = client.query as (...args: unknown[]) => unknown;
  (client as { query: unknown }).query = function (this: ClientBase, ...args: unknown[]) {
    const first = args[0] as string | { text?: string } | undefined;
    const text = typeof first === 'string' ? first : first?.text;
    // Kept as sent: clipped only when described, not on every statement's way out.
    if (text) lastStatements.set(client, text);
    return query.apply(this, args);
  };
}

/**
 * Who holds the watched pools' connections: the count in use and waiting, and the three held
 * longest with what each runs (or last ran, when it waits on something else while holding it).
 * Logged when a request's wait for a connection runs out, so that the log names the holder.
 */
export function poolPressure(now = Date.now()): string {
  const parts: string[] = [];
  for (const [pool, holds] of watched) {
    const longest = [...holds.entries()].sort(([, a], [, b]) => a - b).slice(0, 3);
    const described = longest.map(([client, since]) => {
      const running = (client as { _activeQuery?: { text?: string } | null })._activeQuery?.text;
      const what = running ? `running "${clip(running)}"` : `idle after "${clip(lastStatements.get(client) ?? 'nothing')}"`;
      return `${now - since} ms, ${what}`;
    });
    parts.push(
      `${pool.totalCount - pool.idleCount} of ${pool.totalCount} connections in use, ${pool.waitingCount} waiting` +
        (described.length ? `; held longest: ${described.join('; ')}` : ''),
    );
  }
  return parts.join(' | ');
}

const clip = (text: string) => text.replace(/\s+/g, ' ').trim().slice(0, 120);
