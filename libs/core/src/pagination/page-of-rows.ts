import type { DataSource } from 'typeorm';
import { pageOffset, PageQuery } from './page.query';

export interface RowsPage<T> {
  rows: T[];
  total: number;
}

export interface RowsPageSource {
  table: string;
  columns: string;
  /** A condition whose parameters are `$1..$n`, given in `params`. */
  where: string;
  params: unknown[];
  /** Default `created_at DESC, id DESC`, which the lists' indexes follow. */
  orderBy?: string;
}

/** One page of a table's rows that match `where`, newest first, and how many match in all. */
export async function pageOfRows<T>(db: Pick<DataSource, 'query'>, source: RowsPageSource, query: PageQuery): Promise<RowsPage<T>> {
  const { table, columns, where, params, orderBy = 'created_at DESC, id DESC' } = source;
  const [rows, [{ total }]] = await Promise.all([
    db.query(
      `SELECT ${columns} FROM ${table} WHERE ${where} ORDER BY ${orderBy} LIMIT $${params.length + 1} OFFSET $${params.length + 2}::bigint`,
      [...params, query.pageSize, pageOffset(query)],
    ) as Promise<T[]>,
    db.query(`SELECT count(*)::int AS total FROM ${table} WHERE ${where}`, params) as Promise<{ total: number }[]>,
  ]);
  return { rows, total: Number(total) };
}
