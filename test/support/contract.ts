import OpenAPIResponseValidator from 'openapi-response-validator';
import type { NextFunction, Request, Response } from 'express';
import { documentedProblemCodes } from '../../libs/core/src/openapi/problem-responses';

export interface RecordedResponse {
  method: string;
  /** The route template (`/api/services/{id}`); null when no route ran (an error of the middleware before routing). */
  route: string | null;
  path?: string;
  status: number;
  contentType: string;
  body: unknown;
}

/**
 * Records every JSON response the app sends during a test file, with the route that served it, or
 * its path when the request failed before routing (body too large, not JSON, rate limited per IP):
 * the check finds the operation by matching the path against the document's templates.
 */
export function recordResponses(into: RecordedResponse[]) {
  return (req: Request, res: Response, next: NextFunction) => {
    const send = res.send.bind(res);
    res.send = (body?: unknown) => {
      const contentType = String(res.getHeader('content-type') ?? '');
      if (/json/.test(contentType) && typeof body === 'string' && req.path.startsWith('/api/')) {
        const route = (req.route?.path as string | undefined) ?? null;
        into.push({
          method: req.method.toLowerCase(),
          route: route && `${req.baseUrl}${route}`.replace(/:(\w+)/g, '{$1}'),
          path: req.path,
          status: res.statusCode,
          contentType,
          body: JSON.parse(body),
        });
      }
      return send(body);
    };
    next();
  };
}

/** The document's path template a request path falls under (`/api/services/{id}` for `/api/services/3f...`). */
export function routeOf(document: { paths: Record<string, unknown> }, path: string): string | null {
  if (document.paths[path]) return path;
  const segments = path.split('/');
  const matches = Object.keys(document.paths).filter((template) => {
    const parts = template.split('/');
    return parts.length === segments.length && parts.every((part, i) => /^\{\w+\}$/.test(part) || part === segments[i]);
  });
  // The most literal template wins: /api/notifications/unread-count over /api/notifications/{id}.
  const literal = (t: string) => t.split('/').filter((p) => !p.startsWith('{')).length;
  return matches.sort((a, b) => literal(b) - literal(a))[0] ?? null;
}

/**
 * A problem response whose `code` the document does not list for that operation and status
 * (a dashboard branches on codes, so each operation documents every code it answers).
 */
export function undocumentedProblemCode(operation: any, r: RecordedResponse): string | null {
  if (!/problem\+json/.test(r.contentType)) return null;
  const code = (r.body as { code?: unknown } | null)?.code;
  const listed = documentedProblemCodes(operation?.responses?.[String(r.status)]);
  if (typeof code === 'string' && listed.includes(code)) return null;
  const key = `${r.method.toUpperCase()} ${r.route ?? r.path}`;
  return `${key} answered ${r.status} ${String(code)}, which the document does not list for it (it lists ${listed.join(', ') || 'none'})`;
}

/**
 * The document made strict: an undocumented field in a response is an error, and `nullable` is
 * read as strict tools (Prism, generated clients) read it. OpenAPI 3.1 has no `nullable` keyword;
 * in 3.0 (since 3.0.3) it does not relax a `$ref` or `allOf`/`oneOf`/`anyOf` beside it. The
 * validator would otherwise accept `null` for both, which is how a broken nullable reference
 * once passed every test.
 */
function makeStrict(node: unknown, oas31: boolean): void {
  if (!node || typeof node !== 'object') return;
  const schema = node as Record<string, unknown>;
  const beside = '$ref' in schema || ['allOf', 'oneOf', 'anyOf'].some((key) => Array.isArray(schema[key]));
  if ('nullable' in schema && (oas31 || beside)) delete schema.nullable;
  if (schema.type === 'object' && schema.properties && schema.additionalProperties === undefined) schema.additionalProperties = false;
  Object.values(schema).forEach((child) => makeStrict(child, oas31));
}

export function contractViolations(document: any, responses: RecordedResponse[]): string[] {
  const doc = JSON.parse(JSON.stringify(document));
  const oas31 = /^3\.1\./.test(String(doc.openapi));
  makeStrict(doc.components, oas31);
  makeStrict(doc.paths, oas31);
  const problems: string[] = [];
  const validators = new Map<string, OpenAPIResponseValidator | null>();
  for (const recorded of responses) {
    // A request that failed before routing counts for the operation its path and method name; none is a 404 of no route.
    const route = recorded.route ?? routeOf(doc, recorded.path ?? '');
    if (!route || (!recorded.route && !doc.paths[route]?.[recorded.method])) continue;
    const r = { ...recorded, route };
    const key = `${r.method} ${r.route}`;
    if (!validators.has(key)) {
      const operation = doc.paths[r.route]?.[r.method];
      validators.set(key, operation ? new OpenAPIResponseValidator({ responses: operation.responses, components: doc.components }) : null);
    }
    const validator = validators.get(key);
    if (!validator) {
      problems.push(`${key}: not in the document`);
      continue;
    }
    const declared = doc.paths[r.route][r.method].responses[String(r.status)];
    if (!declared) {
      problems.push(`${key} answered ${r.status}, which the document does not declare`);
      continue;
    }
    const undocumented = undocumentedProblemCode(doc.paths[r.route][r.method], r);
    if (undocumented) {
      problems.push(undocumented);
      continue;
    }
    if (!declared.content) continue;
    const error = validator.validateResponse(r.status, r.body);
    if (error)
      problems.push(
        `${key} ${r.status}: ${error.errors.map((e: { path: string; message: string }) => `${e.path} ${e.message}`).join('; ')}`,
      );
  }
  return [...new Set(problems)];
}
