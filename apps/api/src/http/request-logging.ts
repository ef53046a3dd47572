import type { NextFunction, Request, Response } from 'express';
import type { Level, Logger } from 'pino';
import pinoHttp, { HttpLogger } from 'pino-http';

/** Signed blob URLs carry their capability in the path: `/blobs/uploads/<token>` is logged without it. */
const BLOB_TOKEN = /^(\/blobs\/[^/]+\/)[^/]+/i;
export const loggedUrl = (url: string): string => url.split('?')[0].replace(BLOB_TOKEN, '$1[redacted]');

const levelOf = (res: Response, err?: unknown): Level => (err || res.statusCode >= 500 ? 'error' : res.statusCode >= 400 ? 'warn' : 'info');

/**
 * One JSON line per request: `{req: {id, method, url (no query)}, res: {statusCode}, responseTime}`,
 * "request completed" at info (2xx, 3xx), warn (4xx) or "request errored" at error (5xx).
 *
 * pino-http writes it, but it also builds a child logger for every request up front (serialising
 * and redacting the request) even when the line's level is off. When info is enabled every request
 * is logged and pino-http runs as is; otherwise (LOG_LEVEL=warn in production) a request only gets
 * a completion listener, and the same pino-http logger writes the line only if its level is enabled.
 */
export function requestLogging(
  logger: Logger,
  options: { oneLine?: boolean } = {},
): (req: Request, res: Response, next: NextFunction) => void {
  if (options.oneLine) return oneLineRequests(logger);
  const http: HttpLogger = pinoHttp({
    logger,
    genReqId: (req) => (req as Request).id,
    customLogLevel: (_req, res, err) => levelOf(res as Response, err),
    serializers: {
      req: (req: { method: string; url: string; id: string }) => ({ id: req.id, method: req.method, url: loggedUrl(req.url) }),
      res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
    },
  });
  if (logger.isLevelEnabled('info')) return http;
  if (!logger.isLevelEnabled('error')) return (_req, _res, next) => next();
  return (req, res, next) => {
    const started = Date.now();
    // 'close' follows 'finish', an aborted request and a socket error alike: one listener is enough.
    res.once('close', () => {
      const failure = (res as { err?: unknown }).err;
      const level = levelOf(res, failure);
      if (!logger.isLevelEnabled(level)) return;
      // What pino-http's own completion handler writes, through its logger (same serializers).
      const log = http.logger.child({ req });
      const responseTime = Date.now() - started;
      if (failure || res.statusCode >= 500) {
        log[level]({ res, err: failure || new Error(`failed with status code ${res.statusCode}`), responseTime }, 'request errored');
      } else {
        log[level]({ res, responseTime }, !req.readableAborted && res.writableEnded ? 'request completed' : 'request aborted');
      }
    });
    next();
  };
}

/**
 * For a person at a terminal (pretty logs): one line a request, `GET /api/services 200 12 ms <request id>`,
 * at the same levels as the JSON lines; a 5xx's cause is logged by the exception filter on its own line.
 */
function oneLineRequests(logger: Logger): (req: Request, res: Response, next: NextFunction) => void {
  if (!logger.isLevelEnabled('error')) return (_req, _res, next) => next();
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    res.once('close', () => {
      const level = levelOf(res, (res as { err?: unknown }).err);
      if (!logger.isLevelEnabled(level)) return;
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const status = !req.readableAborted && res.writableEnded ? String(res.statusCode) : `${res.statusCode} (aborted)`;
      logger[level](
        `${req.method} ${loggedUrl(req.originalUrl || req.url)} ${status} ${ms < 10 ? ms.toFixed(1) : Math.round(ms)} ms  ${req.id}`,
      );
    });
    next();
  };
}
