import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import './request-types';

const CLIENT_ID = /^[A-Za-z0-9._:-]{8,128}$/;

/** Every response carries X-Request-Id: the caller's own if it is sane, otherwise a new UUID. */
export function requestId(req: Request, res: Response, next: NextFunction): void {
  const incoming = req.headers['x-request-id'];
  req.id = typeof incoming === 'string' && CLIENT_ID.test(incoming) ? incoming : randomUUID();
  res.setHeader('X-Request-Id', req.id);
  next();
}
