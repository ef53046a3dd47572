import { NestExpressApplication } from '@nestjs/platform-express';
import type { NextFunction, Request, Response } from 'express';
import { json } from 'express';
import type { Server } from 'node:http';
import pinoHttp, { HttpLogger } from 'pino-http';
import type { Level, Logger } from 'pino';
import { AppConfig, AuthFailureLimiter, jsonBodyGuard, Problem, rejectManyJsonValues, requestId } from '@app/core';
import { MetricsService } from '../metrics/metrics.service';
import { buildOpenApiDocument, serveDocs } from './openapi';

const JSON_TYPES = ['application/json', 'application/*+json'];
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

/** A request to /api with a body must send JSON: anything else is a 415, not a silent empty body. */
function requireJsonBodies(req: Request, _res: Response, next: NextFunction): void {
  const hasBody = Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
  if (BODY_METHODS.has(req.method) && hasBody && req.path.startsWith('/api/') && !req.is(JSON_TYPES)) {
    next(new Problem(415, 'unsupported_media_type', 'Send the request body as application/json.'));
    return;
  }
  next();
}

function securityHeaders(_req: Request, res: Response, next: NextFunction): void {
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('X-Frame-Options', 'DENY');
  next();
}

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
export function requestLogging(logger: Logger): (req: Request, res: Response, next: NextFunction) => void {
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

/** Everything the HTTP app needs beyond its modules; the server and the e2e tests share it. */
export function configureApp(app: NestExpressApplication, config: AppConfig, logger?: Logger): void {
  app.disable('x-powered-by');
  // Idle connections outlive the load balancer's keep-alive, so it never reuses one Node is closing.
  const server = app.getHttpServer() as Server;
  server.keepAliveTimeout = config.httpKeepAliveTimeoutMs;
  server.headersTimeout = config.httpHeadersTimeoutMs;
  // No ETag: Express would hash every response body, and the API offers no conditional requests.
  app.set('etag', false);
  // Only the proxies the operator names may set the client address (X-Forwarded-For).
  app.set('trust proxy', config.trustProxy);
  app.set('query parser', 'simple');
  app.use(requestId);
  app.use(app.get(MetricsService).middleware);
  if (logger) app.use(requestLogging(logger));
  app.use(securityHeaders);
  app.use(app.get(AuthFailureLimiter).middleware);
  app.use(requireJsonBodies);
  app.use(json({ limit: '1mb', type: JSON_TYPES, verify: rejectManyJsonValues }));
  app.use(jsonBodyGuard);
  if (config.corsOrigins.length) {
    app.enableCors({
      origin: config.corsOrigins,
      credentials: false,
      exposedHeaders: ['X-Request-Id', 'Location', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'Retry-After'],
    });
  }
  if (config.docsEnabled) serveDocs(app, buildOpenApiDocument(app));
}
