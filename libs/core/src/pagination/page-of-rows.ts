import { FindOptionsOrder, FindOptionsWhere, Repository } from 'typeorm';
import { SqlExecutor, sqlFirst, sqlRows } from '../database/statement';
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
  /**
   * A statement giving `total` for the same `params` without counting rows (a trigger-kept
   * counter); by default the matching rows are counted.
   */
  totalSql?: string;
}

const countSql = (table: string, where: string) => `SELECT count(*)::int AS total FROM ${table} WHERE ${where}`;

/** How many rows of `table` match `where` (parameters `$1..$n` in `params`): a list's total, a quota's count. */
export function countRows(on: SqlExecutor, table: string, where: string, params: unknown[]): Promise<number> {
  return totalOf(on, countSql(table, where), params);
}

/** What a statement giving `total` answers. */
async function totalOf(on: SqlExecutor, sql: string, params: unknown[]): Promise<number> {
  const row = await sqlFirst<{ total: number }>(on, sql, params);
  return Number(row!.total);
}

/**
 * The page's statement, a deferred join (ids from the list's index, then only those rows) whose
 * rows carry the total as `page_total`; and the total's own statement, for an empty page.
 */
export function pageOfRowsSql(source: RowsPageSource): { page: string; total: string } {
  const { table, columns, where, params, orderBy = 'created_at DESC, id DESC', totalSql } = source;
  const limit = `$${params.length + 1}`;
  const offset = `$${params.length + 2}::bigint`;
  const total = totalSql ?? countSql(table, where);
  // The inner SELECT reads only the list's index (an index-only scan where the index covers
  // `where` and `orderBy`), so a deep OFFSET skips index entries, not rows.
  return {
    page: `SELECT ${columns}, (${total}) AS page_total FROM ${table} JOIN (SELECT id AS page_id FROM ${table} WHERE ${where} ORDER BY ${orderBy} LIMIT ${limit} OFFSET ${offset}) page ON page.page_id = ${table}.id ORDER BY ${orderBy}`,
    total,
  };
}

/** One page of a table's rows that match `where`, newest first, and how many match in all. */
export async function pageOfRows<T>(on: SqlExecutor, source: RowsPageSource, query: PageQuery): Promise<RowsPage<T>> {
  const sql = pageOfRowsSql(source);
  // The total rides on the page's rows: one statement reads one snapshot, so the two agree while
  // rows are written (two statements once answered a total of 2 beside a page of 1). An empty page
  // has no row to carry it.
  const rows = await sqlRows<T & { page_total: number }>(on, sql.page, [...source.params, query.pageSize, pageOffset(query)]);
  if (!rows.length) return { rows: [], total: await totalOf(on, sql.total, source.params) };
  const total = Number(rows[0].page_total);
  return { rows: rows.map(({ page_total: _total, ...row }) => row as T), total };
}

/** The same for an entity's TypeORM repository: a page of the rows that match `where`, newest first, and how many match. */
export function pageOfEntities<T extends { id: string; createdAt: Date }>(
  repository: Repository<T>,
  where: FindOptionsWhere<T>,
  query: PageQuery,
): Promise<[T[], number]> {
  const order = { createdAt: 'DESC', id: 'DESC' } as FindOptionsOrder<T>;
  return repository.findAndCount({ where, order, skip: Number(pageOffset(query)), take: query.pageSize });
}
