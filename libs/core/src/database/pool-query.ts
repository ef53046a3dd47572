import { createHash } from 'node:crypto';
import { DataSource } from 'typeorm';
import { PGlitePool } from './pglite-pool';
import { driverPool, SqlExecutor, sqlRows } from './statement';

/** Texts named so far; beyond this many (never, with the fixed statements of the hot paths) the rest run unnamed. */
const MAX_NAMED_TEXTS = 256;
/** PostgreSQL's answers when a prepared statement can no longer run as prepared: a result type changed by a migration, or one a pooler lost. */
const REPREPARE_CODES = new Set(['0A000', '26000']);

const names = new Map<string, string>();
let generation = 0;

function statementName(text: string): string | null {
  const known = names.get(text);
  if (known) return known;
  if (names.size >= MAX_NAMED_TEXTS) return null;
  const name = `hot_${generation}_${createHash('sha1').update(text).digest('hex').slice(0, 16)}`;
  names.set(text, name);
  return name;
}

/**
 * One statement on the driver's pool, outside any transaction, for the statements that run on
 * every request (credential lookups, the hot lists and counts): the driver's pool without a TypeORM
 * query runner built around it. On PostgreSQL the statement is named (a prepared statement per
 * connection, its name derived from its text): PostgreSQL parses and plans it once per connection
 * instead of on every request, which is most of the database's time for the list's statements.
 * A statement PostgreSQL can no longer run as prepared (a migration changed its result's type)
 * runs again unnamed, and is prepared again under a new name next time. Given a transaction's
 * manager, the statement runs in the transaction, as `sqlRows` runs it.
 */
export async function poolQuery<T>(on: SqlExecutor, text: string, values: unknown[]): Promise<T[]> {
  const dataSource = on instanceof DataSource ? on : null;
  const pool = dataSource && driverPool(dataSource);
  const name = pool && !(pool instanceof PGlitePool) ? statementName(text) : null;
  if (!pool || !name) return sqlRows<T>(on, text, values);
  try {
    return (await pool.query({ name, text, values })).rows as T[];
  } catch (err) {
    if (!REPREPARE_CODES.has((err as { code?: string }).code ?? '')) throw err;
    names.delete(text);
    generation += 1;
    return sqlRows<T>(on, text, values);
  }
}
