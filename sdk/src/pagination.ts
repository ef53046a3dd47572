import type { HostingClient } from './client';
import { CallResult, unwrap } from './errors';
import type { paths } from './schema';

type GetOperation<P extends keyof paths> = paths[P] extends { get: infer O } ? O : never;
type OkJson<O> = O extends { responses: { 200: { content: { 'application/json': infer B } } } } ? B : never;
interface PageShape {
  data: unknown[];
  page: number;
  pageSize: number;
  total: number;
  totalPages: number;
}

/** The GET paths that answer one page of a list: `{data, page, pageSize, total, totalPages}`. */
export type PaginatedPath = {
  [P in keyof paths]: [OkJson<GetOperation<P>>] extends [never] ? never : OkJson<GetOperation<P>> extends PageShape ? P : never;
}[keyof paths];

/** One page of the list at `P`. */
export type Page<P extends PaginatedPath> = Extract<OkJson<GetOperation<P>>, PageShape>;
/** One item of the list at `P`. */
export type ListItem<P extends PaginatedPath> = OkJson<GetOperation<P>> extends { data: (infer I)[] } ? I : never;
type Parameters_<P extends PaginatedPath> = GetOperation<P> extends { parameters: infer X } ? X : never;
/** The list's filters (and `pageSize`); `page` is the iterator's business. */
export type ListQuery<P extends PaginatedPath> = Omit<NonNullable<Parameters_<P> extends { query?: infer Q } ? Q : never>, 'page'>;
type PathParams<P extends PaginatedPath> = Parameters_<P> extends { path: infer X } ? X : undefined;

/** `(query?)` for plain lists, `(query, pathParams)` for lists under a resource such as `/api/services/{id}/instance/actions`. */
export type ListArgs<P extends PaginatedPath> = [PathParams<P>] extends [undefined]
  ? [query?: ListQuery<P>]
  : [query: ListQuery<P> | undefined, path: PathParams<P>];

/**
 * Every page of a list, fetched one at a time as you iterate. Pages are 100 items unless the
 * query sets `pageSize`. Non-2xx answers throw `HostingApiError`.
 *
 *     for await (const page of pages(client, '/api/services', { type: 'vps' })) console.log(page.page, page.data.length);
 */
export async function* pages<P extends PaginatedPath>(
  client: HostingClient,
  path: P,
  ...[query, pathParams]: ListArgs<P>
): AsyncGenerator<Page<P>, void, undefined> {
  // openapi-fetch's per-path types do not survive a generic path; the arguments are checked above.
  const get = client.GET as unknown as (
    path: string,
    init: { params: { query: Record<string, unknown>; path?: unknown } },
  ) => Promise<CallResult<PageShape>>;
  for (let page = 1; ; page++) {
    const body = await unwrap(
      get(path, { params: { query: { pageSize: 100, ...(query as object | undefined), page }, path: pathParams } }),
    );
    yield body as Page<P>;
    if (body.data.length === 0 || page >= body.totalPages) return;
  }
}

/**
 * Every item of a list, all pages walked. Lists are newest first, so an item created during the
 * walk pushes older ones onto the next page: items seen twice are returned once (by `id`).
 *
 *     const vps = await listAll(client, '/api/services', { type: 'vps' });
 */
export async function listAll<P extends PaginatedPath>(client: HostingClient, path: P, ...args: ListArgs<P>): Promise<ListItem<P>[]> {
  const items: ListItem<P>[] = [];
  const seen = new Set<unknown>();
  for await (const page of pages(client, path, ...args)) {
    for (const item of (page as PageShape).data as ListItem<P>[]) {
      const id = (item as { id?: unknown }).id;
      if (id !== undefined) {
        if (seen.has(id)) continue;
        seen.add(id);
      }
      items.push(item);
    }
  }
  return items;
}
