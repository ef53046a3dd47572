import type { Request } from 'express';
import type { RequestFacts } from '../auth/principal';
import './request-types';

export type { ClientInfo, RequestFacts } from '../auth/principal';

export function requestFactsOf(req: Request): RequestFacts {
  const userAgent = req.headers['user-agent'];
  return {
    requestId: req.id ?? null,
    ip: req.ip?.slice(0, 64) ?? null,
    userAgent: typeof userAgent === 'string' ? userAgent.slice(0, 512) : null,
  };
}
