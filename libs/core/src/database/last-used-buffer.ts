import { runSql, SqlExecutor } from './statement';

/**
 * Credentials' last_used_at, written off the request path: a request only adds the id, and the
 * collected ids are written in one statement every few seconds (and once more at shutdown). A
 * failed write keeps the ids for the next round.
 */
export class LastUsedBuffer {
  private readonly ids = new Set<string>();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly write: (ids: string[]) => Promise<void>,
    intervalMs = 5_000,
  ) {
    this.timer = setInterval(() => void this.flush(), intervalMs).unref();
  }

  add(id: string): void {
    this.ids.add(id);
  }

  async flush(): Promise<void> {
    if (!this.ids.size) return;
    const ids = [...this.ids];
    this.ids.clear();
    await this.write(ids).catch(() => ids.forEach((id) => this.ids.add(id)));
  }

  /** For `beforeApplicationShutdown`: no more rounds, one last write. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }
}

/** The buffer's write for a table of credentials: `last_used_at` of these rows, to the minute (a row used again within it is not written). */
export async function touchLastUsed(on: SqlExecutor, table: string, ids: string[]): Promise<void> {
  await runSql(
    on,
    `UPDATE ${table} SET last_used_at = now()
      WHERE id = ANY($1::uuid[]) AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')`,
    [ids],
  );
}
