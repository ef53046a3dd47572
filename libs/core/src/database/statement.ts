import { DataSource, EntityManager, QueryResult } from 'typeorm';

/** Where a statement runs: the data source (a connection of its own) or a transaction's manager. */
export type SqlExecutor = DataSource | EntityManager;

/** The driver's pool (pg.Pool, or the PGlite look-alike): enough to run one statement. */
interface Pool {
  query(text: string, values: unknown[]): Promise<{ rows: unknown[]; rowCount?: number | null }>;
  query(statement: { name: string; text: string; values: unknown[] }): Promise<{ rows: unknown[]; rowCount?: number | null }>;
}

/**
 * The pool TypeORM's postgres driver keeps (a field it does not publish): pg's Pool on PostgreSQL,
 * PGlitePool on the embedded database; the one place that reads it.
 */
export function driverMaster<T>(dataSource: DataSource): T | undefined {
  return (dataSource.driver as unknown as { master?: T }).master;
}

export function driverPool(dataSource: DataSource): Pool | null {
  const pool = driverMaster<Pool>(dataSource);
  return pool && typeof pool.query === 'function' ? pool : null;
}

export interface StatementResult<T> {
  rows: T[];
  /** Rows the command touched: updated, deleted, inserted or selected. */
  count: number;
}

/**
 * The one way to run a raw statement. TypeORM's `query()` answers UPDATE and DELETE with
 * `[rows, rowCount]` on PostgreSQL and everything else with `rows`, so `const [row] = await
 * query('UPDATE ... RETURNING')` read the rows array as a row. The structured result
 * gives rows and count alike for every command, on PostgreSQL and PGlite.
 */
export async function runSql<T = Record<string, unknown>>(
  on: SqlExecutor,
  text: string,
  values: unknown[] = [],
): Promise<StatementResult<T>> {
  // Outside a transaction one statement needs no query runner around it: the driver's pool runs it
  // (the runner's connect, events and release cost a share of every request).
  const pool = on instanceof DataSource ? driverPool(on) : null;
  if (pool) {
    const result = await pool.query(text, values);
    return { rows: result.rows as T[], count: result.rowCount ?? result.rows.length };
  }
  const manager = on instanceof DataSource ? on.manager : on;
  const runner = manager.queryRunner ?? manager.connection.createQueryRunner();
  try {
    const result = (await runner.query(text, values, true)) as QueryResult<T>;
    const rows = result.records ?? [];
    return { rows, count: result.affected ?? rows.length };
  } finally {
    if (runner !== manager.queryRunner) await runner.release();
  }
}

/** The rows a statement gives (a SELECT, or any command with RETURNING). */
export async function sqlRows<T = Record<string, unknown>>(on: SqlExecutor, text: string, values: unknown[] = []): Promise<T[]> {
  return (await runSql<T>(on, text, values)).rows;
}

/** The first row a statement gives, or null. */
export async function sqlFirst<T = Record<string, unknown>>(on: SqlExecutor, text: string, values: unknown[] = []): Promise<T | null> {
  return (await runSql<T>(on, text, values)).rows[0] ?? null;
}

/** How many rows a statement touched. */
export async function sqlCount(on: SqlExecutor, text: string, values: unknown[] = []): Promise<number> {
  return (await runSql(on, text, values)).count;
}
