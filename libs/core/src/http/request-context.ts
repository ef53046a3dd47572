import { AsyncLocalStorage } from 'node:async_hooks';
import type { NextFunction, Request, Response } from 'express';
import type { Principal } from '../auth/principal';
import './request-types';

/** Facts about the current request that deep code needs without threading them through every signature. */
export interface RequestFacts {
  requestId: string;
  ip: string | null;
  userAgent: string | null;
  /** Set by the global bearer guard once the caller is known. */
  principal?: Principal;
}

const storage = new AsyncLocalStorage<RequestFacts>();

export const RequestContext = {
  /** The current request's facts; undefined outside a request (jobs, timers, the CLI). */
  current(): RequestFacts | undefined {
    return storage.getStore();
  },
  run<T>(facts: RequestFacts, work: () => T): T {
    return storage.run(facts, work);
  },
};

/**
 * Opens the request's context. Mounted after the body parser: a stream-reading middleware calls
 * next() from the socket's async context, which would lose a context opened before it.
 */
export function requestContext(req: Request, _res: Response, next: NextFunction): void {
  const userAgent = req.headers['user-agent'];
  storage.run(
    {
      requestId: req.id,
      ip: req.ip?.slice(0, 64) ?? null,
      userAgent: typeof userAgent === 'string' ? userAgent.slice(0, 512) : null,
    },
    next,
  );
}
