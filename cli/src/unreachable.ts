import type { FetchLike } from '@hosting-account/sdk';

/** The API did not answer at all (refused, unknown host, reset): says where hostctl looked and how to point it elsewhere. */
export class ApiUnreachableError extends Error {
  override readonly name = 'ApiUnreachableError';

  constructor(
    readonly url: string,
    /** Where the URL came from: `HOSTCTL_URL`, `the --url option`, `context "work"`, `the default`. */
    readonly source: string,
    cause: unknown,
  ) {
    super(`cannot reach the API at ${url}${reason(cause)}`, { cause });
  }

  get hint(): string {
    return [
      `  The address comes from ${this.source}.`,
      '  To use another: set HOSTCTL_URL=<url>, log in with "hostctl auth login --url <url>" (kept in',
      '  the context), or pick a context with "hostctl --context <name>" (see "hostctl context list").',
    ].join('\n');
  }
}

function reason(cause: unknown): string {
  const inner = (cause as { cause?: { code?: string; message?: string } })?.cause;
  if (inner?.code) return ` (${inner.code})`;
  if (inner?.message) return ` (${inner.message})`;
  return cause instanceof Error ? ` (${cause.message})` : '';
}

/** A fetch that turns "no answer" into ApiUnreachableError; an aborted request stays an abort. */
export function reportingUnreachable(fetchImpl: FetchLike, url: string, source: string): FetchLike {
  return (request, init) =>
    fetchImpl(request, init).catch((error: unknown) => {
      if (request.signal?.aborted || (error as Error)?.name === 'AbortError') throw error;
      throw new ApiUnreachableError(url, source, error);
    });
}
