import { EventEmitter } from 'node:events';
import type { PGlite } from '@electric-sql/pglite';
import { EmbeddedDatabaseDeadlock, heldConnection, stackHere } from './held-connection';

type Callback = (err: Error | null, result?: unknown) => void;

/**
 * A pg.Pool look-alike over one PGlite instance. PGlite is a single session, so a client is an
 * exclusive lease: a transaction never sees another request's statements, and others queue behind
 * it (NOTES.md). Results are shaped as pg's (int8 as string, rowCount, command).
 */
export class PGlitePool extends EventEmitter {
  private static readonly instances = new Map<string, Promise<PGlite>>();
  private readonly db: Promise<PGlite>;
  private tail: Promise<void> = Promise.resolve();
  waitingCount = 0;
  totalCount = 1;
  get idleCount(): number {
    return this.leased ? 0 : 1;
  }
  private leased = false;

  constructor(options: { dataDir: string }) {
    super();
    this.db = PGlitePool.open(options.dataDir);
  }

  static open(dataDir: string): Promise<PGlite> {
    let instance = PGlitePool.instances.get(dataDir);
    if (!instance) {
      // Loaded only where the embedded database is used: a replica on PostgreSQL never pays for it.
      instance = import('@electric-sql/pglite').then(({ PGlite, types }) =>
        PGlite.create(dataDir, { parsers: { [types.INT8]: (value: string) => value } }),
      );
      PGlitePool.instances.set(dataDir, instance);
    }
    return instance;
  }

  static async close(dataDir: string): Promise<void> {
    const instance = PGlitePool.instances.get(dataDir);
    PGlitePool.instances.delete(dataDir);
    if (instance) await (await instance).close();
  }

  connect(callback?: (err: Error | null, client?: PGliteClient, release?: () => void) => void): Promise<PGliteClient> | void {
    const leased = this.lease();
    if (!callback) return leased;
    leased.then(
      (client) => callback(null, client, () => client.release()),
      (err: Error) => callback(err),
    );
  }

  async query(text: string, params?: unknown[]): Promise<unknown> {
    const client = await this.lease();
    try {
      return await client.query(text, params);
    } finally {
      client.release();
    }
  }

  private async lease(): Promise<PGliteClient> {
    const held = heldConnection();
    if (held) throw new EmbeddedDatabaseDeadlock(held, stackHere());
    this.waitingCount++;
    let release!: () => void;
    const previous = this.tail;
    this.tail = new Promise<void>((resolve) => (release = resolve));
    await previous;
    this.waitingCount--;
    this.leased = true;
    const db = await this.db;
    return new PGliteClient(db, () => {
      this.leased = false;
      release();
    });
  }

  end(callback?: (err?: Error) => void): Promise<void> | void {
    const done = this.tail.then(() => undefined);
    if (!callback) return done;
    done.then(() => callback(), callback);
  }
}

export class PGliteClient extends EventEmitter {
  private released = false;
  constructor(
    private readonly db: PGlite,
    private readonly onRelease: () => void,
  ) {
    super();
  }

  query(text: string, params?: unknown[] | Callback, callback?: Callback): Promise<unknown> {
    const cb = typeof params === 'function' ? params : callback;
    const values = Array.isArray(params) ? params : undefined;
    const run = this.run(text, values);
    if (cb)
      run.then(
        (result) => cb(null, result),
        (err: Error) => cb(err),
      );
    return run;
  }

  private async run(text: string, values?: unknown[]) {
    if (values && values.length) {
      const result = await this.db.query(text, values);
      return { ...result, rowCount: rowCountOf(result) };
    }
    const results = await this.db.exec(text);
    const last = results[results.length - 1] ?? { rows: [], fields: [], affectedRows: 0 };
    return { ...last, rowCount: rowCountOf(last) };
  }

  release(): void {
    if (this.released) return;
    this.released = true;
    this.onRelease();
  }
}

/** pg's rowCount: rows touched by a write, rows given by a SELECT (PGlite's affectedRows is 0 for a SELECT). */
function rowCountOf(result: { rows: unknown[]; affectedRows?: number; rowCount?: number }): number {
  return result.rowCount ?? (result.affectedRows || result.rows.length);
}
