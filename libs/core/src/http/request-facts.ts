import type { Request } from 'express';
import './request-types';

/** Where a request came from, as recorded on a session. */
export interface ClientInfo {
  ip: string | null;
  userAgent: string | null;
}

/**
 * A request's facts as the activity log records them. Passed explicitly (on the Principal, or as
 * an argument on public routes): an AsyncLocalStorage context costs every request Node's promise hooks.
 */
export interface RequestFacts extends ClientInfo {
  requestId: string | null;
}

export function requestFactsOf(req: Request): RequestFacts {
  const userAgent = req.headers['user-agent'];
  return {
    requestId: req.id ?? null,
    ip: req.ip?.slice(0, 64) ?? null,
    userAgent: typeof userAgent === 'string' ? userAgent.slice(0, 512) : null,
  };
}
