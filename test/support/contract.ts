import OpenAPIResponseValidator from 'openapi-response-validator';
import type { NextFunction, Request, Response } from 'express';

export interface RecordedResponse {
  method: string;
  route: string;
  status: number;
  contentType: string;
  body: unknown;
}

/** Records every JSON response the app sends during a test file, with the route that served it. */
export function recordResponses(into: RecordedResponse[]) {
  return (req: Request, res: Response, next: NextFunction) => {
    const send = res.send.bind(res);
    res.send = (body?: unknown) => {
      const contentType = String(res.getHeader('content-type') ?? '');
      if (/json/.test(contentType) && typeof body === 'string' && req.path.startsWith('/api/')) {
        const route = (req.route?.path as string | undefined) ?? null;
        if (route) {
          into.push({
            method: req.method.toLowerCase(),
            route: `${req.baseUrl}${route}`.replace(/:(\w+)/g, '{$1}'),
            status: res.statusCode,
            contentType,
            body: JSON.parse(body),
          });
        }
      }
      return send(body);
    };
    next();
  };
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
  for (const r of responses) {
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
    if (!declared.content) continue;
    const error = validator.validateResponse(r.status, r.body);
    if (error)
      problems.push(
        `${key} ${r.status}: ${error.errors.map((e: { path: string; message: string }) => `${e.path} ${e.message}`).join('; ')}`,
      );
  }
  return [...new Set(problems)];
}
