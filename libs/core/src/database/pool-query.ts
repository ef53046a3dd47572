import { DataSource } from 'typeorm';

/** The driver's pool (pg.Pool, or the PGlite look-alike): enough to run one statement. */
interface Pool {
  query(text: string, values: unknown[]): Promise<{ rows: unknown[]; rowCount?: number | null }>;
}

/** The driver's pool, where the driver has one this module can use. */
export function driverPool(dataSource: DataSource): Pool | null {
  const pool = (dataSource.driver as unknown as { master?: Pool }).master;
  return pool && typeof pool.query === 'function' ? pool : null;
}

/**
 * One statement on the driver's pool, outside any transaction, without a TypeORM query runner
 * built around it: for the statements that run on every request (credential lookups, the hot
 * lists and counts). Same SQL, same pool, same errors; rows as the driver gives them.
 */
export async function poolQuery<T>(dataSource: DataSource, text: string, values: unknown[]): Promise<T[]> {
  const pool = driverPool(dataSource);
  if (pool) return (await pool.query(text, values)).rows as T[];
  return dataSource.query(text, values);
}
