import { NestExpressApplication } from '@nestjs/platform-express';
import type { NextFunction, Request, Response } from 'express';
import { json, text } from 'express';
import type { OpenAPIObject } from '@nestjs/swagger';
import type { Server } from 'node:http';
import type { Logger } from 'pino';
import { AppConfig, AuthFailureLimiter, jsonBodyGuard, Problem, rejectManyJsonValues, requestId } from '@app/core';
import { ClientRelay, OpenApiDocumentSource } from '@app/mcp';
import { OperatorMetrics } from '../operator-metrics/operator-metrics';
import { buildOpenApiDocument, serveDocs } from './openapi';
import { requestLogging } from './request-logging';

const JSON_TYPES = ['application/json', 'application/*+json'];
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);
/** The routes whose body is a text/plain document (a zone file), not JSON. */
const TEXT_BODY_PATHS = [/^\/api\/dns\/zones\/[^/]+\/import$/];
const isTextRoute = (req: Request) => req.method === 'POST' && TEXT_BODY_PATHS.some((path) => path.test(req.path));

/** A request to /api with a body must send JSON: anything else is a 415, not a silent empty body. */
function requireJsonBodies(req: Request, _res: Response, next: NextFunction): void {
  const hasBody = Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
  if (BODY_METHODS.has(req.method) && hasBody && req.path.startsWith('/api/') && !req.is(JSON_TYPES)) {
    if (isTextRoute(req) && req.is('text/plain')) return next();
    const expected = isTextRoute(req) ? 'text/plain (a zone file)' : 'application/json';
    next(new Problem(415, 'unsupported_media_type', `Send the request body as ${expected}.`));
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

/** Where the app logs; `oneLineRequests` for a person at a terminal (see requestLogging). */
export interface AppLogging {
  logger: Logger;
  oneLineRequests?: boolean;
}

/** Everything the HTTP app needs beyond its modules; the server and the e2e tests share it. */
export function configureApp(app: NestExpressApplication, config: AppConfig, logging?: AppLogging): void {
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
  // The MCP endpoint's loopback calls carry their client's address: set before anything reads req.ip.
  app.use(app.get(ClientRelay).middleware);
  app.use(requestId);
  app.use(app.get(OperatorMetrics).middleware);
  if (logging) app.use(requestLogging(logging.logger, { oneLine: logging.oneLineRequests }));
  app.use(securityHeaders);
  app.use(app.get(AuthFailureLimiter).middleware);
  app.use(requireJsonBodies);
  app.use(json({ limit: '1mb', type: JSON_TYPES, verify: rejectManyJsonValues }));
  app.use(TEXT_BODY_PATHS, text({ limit: '1mb', type: 'text/plain' }));
  app.use(jsonBodyGuard);
  if (config.corsOrigins.length) {
    app.enableCors({
      origin: config.corsOrigins,
      credentials: false,
      // Mcp-Session-Id: a browser's MCP client reads the session it was given at /mcp.
      exposedHeaders: [
        'X-Request-Id',
        'Location',
        'RateLimit-Limit',
        'RateLimit-Remaining',
        'RateLimit-Reset',
        'Retry-After',
        'Mcp-Session-Id',
      ],
    });
  }
  // Built at its first request, not at every replica's start (the scan of every route and DTO is
  // most of the start's memory peak that the docs add); Swagger UI and MCP share the one build.
  let document: OpenAPIObject | undefined;
  const documentOnce = () => (document ??= buildOpenApiDocument(app));
  app.get(OpenApiDocumentSource).use(documentOnce);
  if (config.docsEnabled) serveDocs(app, documentOnce);
}
