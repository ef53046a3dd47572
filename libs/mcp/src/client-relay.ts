import { Injectable } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';

const SECRET_HEADER = 'x-hosting-relay';
const CLIENT_HEADER = 'x-hosting-relay-for';
const LOOPBACK = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);

/**
 * The MCP endpoint calls this API on loopback for its client, so every call is a normal request.
 * Those calls would all come from 127.0.0.1: the activity log would show it instead of the
 * client's address, and the per-address limits (authentication failures) would put every MCP
 * client in one bucket. A call that comes from loopback with this process's secret carries the
 * client's address instead; the headers are removed from every request, so nothing else sees them.
 */
@Injectable()
export class ClientRelay {
  private readonly secret = randomBytes(32).toString('base64url');

  /** Headers of a loopback call made for a client at `ip`. */
  headersFor(ip: string | undefined): Record<string, string> {
    return ip ? { [SECRET_HEADER]: this.secret, [CLIENT_HEADER]: ip } : {};
  }

  /** First in the chain: before anything reads `req.ip`. */
  readonly middleware = (req: Request, _res: Response, next: NextFunction): void => {
    const secret = req.headers[SECRET_HEADER];
    const client = req.headers[CLIENT_HEADER];
    if (secret === undefined && client === undefined) return next();
    delete req.headers[SECRET_HEADER];
    delete req.headers[CLIENT_HEADER];
    if (typeof secret === 'string' && typeof client === 'string' && isIP(client) && this.fromLoopback(req) && this.matches(secret)) {
      Object.defineProperty(req, 'ip', { value: client, configurable: true });
    }
    next();
  };

  private fromLoopback(req: Request): boolean {
    return LOOPBACK.has(req.socket.remoteAddress ?? '');
  }

  private matches(secret: string): boolean {
    const given = Buffer.from(secret);
    const expected = Buffer.from(this.secret);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }
}
