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
          into.push({ method: req.method.toLowerCase(), route: `${req.baseUrl}${route}`.replace(/:(\w+)/g, '{$1}'), status: res.statusCode, contentType, body: JSON.parse(body) });
        }
      }
      return send(body);
    };
    next();
  };
}

/**
 * The document made strict: an undocumented field in a response is an error. OpenAPI 3.0's
 * `nullable` beside `allOf` (a nullable reference) is spelled out as "that or null", which the
 * validator does not do by itself.
 */
function closeObjects(node: unknown): void {
  if (!node || typeof node !== 'object') return;
  const schema = node as Record<string, unknown>;
  if (schema.nullable === true && Array.isArray(schema.allOf)) {
    const allOf = schema.allOf;
    delete schema.allOf;
    delete schema.nullable;
    delete schema.type;
    schema.anyOf = [{ allOf }, { type: 'null' }];
  }
  if (schema.type === 'object' && schema.properties && schema.additionalProperties === undefined) schema.additionalProperties = false;
  Object.values(schema).forEach(closeObjects);
}

export function contractViolations(document: any, responses: RecordedResponse[]): string[] {
  const doc = JSON.parse(JSON.stringify(document));
  closeObjects(doc.components);
  closeObjects(doc.paths);
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
    if (error) problems.push(`${key} ${r.status}: ${error.errors.map((e: { path: string; message: string }) => `${e.path} ${e.message}`).join('; ')}`);
  }
  return [...new Set(problems)];
}
