import type { NextFunction, Request, Response } from 'express';
import { Problem } from '../errors/problem';

export const MAX_JSON_DEPTH = 32;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function badString(value: string): string | null {
  if (value.includes('\u0000')) return 'must not contain NUL characters';
  if (LONE_SURROGATE.test(value)) return 'must be valid Unicode (no lone surrogates)';
  return null;
}

/**
 * Rejects parsed JSON that no handler should see: nesting deeper than MAX_JSON_DEPTH (validators
 * recurse) and strings PostgreSQL or validators cannot take (NUL, lone surrogates). Iterative, so
 * a hostile body cannot exhaust the stack here either.
 */
export function jsonBodyGuard(req: Request, _res: Response, next: NextFunction): void {
  if (req.body === undefined || req.body === null || typeof req.body !== 'object') return next();
  const stack: { value: unknown; depth: number; path: string }[] = [{ value: req.body, depth: 1, path: '' }];
  while (stack.length) {
    const { value, depth, path } = stack.pop()!;
    if (depth > MAX_JSON_DEPTH) return next(Problem.invalidInput(`The JSON body is nested deeper than ${MAX_JSON_DEPTH} levels.`));
    for (const [key, child] of Object.entries(value as object)) {
      const field = path ? `${path}.${key}` : key;
      const problem = badString(key) ?? (typeof child === 'string' ? badString(child) : null);
      if (problem) return next(Problem.invalidInput(`${field} ${problem}`, [{ field, message: problem }]));
      if (child !== null && typeof child === 'object') stack.push({ value: child, depth: depth + 1, path: field });
    }
  }
  next();
}
