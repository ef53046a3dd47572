import { DataSource } from 'typeorm';
import { sqlRows } from './statement';

/**
 * One statement on the driver's pool, outside any transaction, for the statements that run on
 * every request (credential lookups, the hot lists and counts): `sqlRows` with the data source,
 * which is the driver's pool without a TypeORM query runner built around it. Same SQL, same pool,
 * same errors; rows as the driver gives them.
 */
export function poolQuery<T>(dataSource: DataSource, text: string, values: unknown[]): Promise<T[]> {
  return sqlRows<T>(dataSource, text, values);
}
