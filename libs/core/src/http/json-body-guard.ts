import type { NextFunction, Request, Response } from 'express';
import { Problem } from '../errors/problem';

export const MAX_JSON_DEPTH = 32;
/** No request of the API needs more; validation's work grows faster than linearly with width. */
export const MAX_JSON_KEYS_PER_OBJECT = 100;
export const MAX_JSON_ITEMS_PER_ARRAY = 100;
export const MAX_JSON_NODES = 2_000;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function badString(value: string): string | null {
  if (value.includes('\u0000')) return 'must not contain NUL characters';
  if (LONE_SURROGATE.test(value)) return 'must be valid Unicode (no lone surrogates)';
  return null;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;

/**
 * body-parser `verify` hook: refuses raw JSON with more values than MAX_JSON_NODES before it is
 * parsed (parsing 80,000 keys costs ~100 ms alone). Every value after the first of its container
 * follows a comma outside a string, so a body the guard below accepts always passes this scan.
 */
export function rejectManyJsonValues(_req: unknown, _res: unknown, raw: Buffer): void {
  let commas = 0;
  let inString = false;
  for (let i = 0; i < raw.length; i++) {
    const byte = raw[i];
    if (inString) {
      if (byte === BACKSLASH) i++;
      else if (byte === QUOTE) inString = false;
    } else if (byte === QUOTE) inString = true;
    else if (byte === COMMA && ++commas >= MAX_JSON_NODES) {
      throw Object.assign(new Error('too many JSON values'), { type: 'entity.too.many.values', status: 400 });
    }
  }
}

/** Counts keys only up to the cap: Object.keys() of an 80,000-key object would copy them all. */
function wider(value: object, max: number): boolean {
  if (Array.isArray(value)) return value.length > max;
  let keys = 0;
  for (const _key in value) if (++keys > max) return true;
  return false;
}

function tooWide(value: object, field: string): Problem | null {
  const isArray = Array.isArray(value);
  const max = isArray ? MAX_JSON_ITEMS_PER_ARRAY : MAX_JSON_KEYS_PER_OBJECT;
  if (!wider(value, max)) return null;
  const where = field || 'The JSON body';
  const message = isArray ? `must have at most ${max} items` : `must have at most ${max} properties`;
  return Problem.invalidInput(`${where} ${message}.`, [{ field: field || 'body', message }]);
}

/**
 * Rejects parsed JSON that no handler should see, before validation spends time on it: nesting
 * deeper than MAX_JSON_DEPTH (validators recurse), objects and arrays wider than their caps or
 * more values in all than MAX_JSON_NODES (the validation pipe's work grows with the square of an
 * object's width), and strings PostgreSQL or validators cannot take (NUL, lone surrogates).
 * Iterative, and each container's width is checked before its entries are walked, so a hostile
 * body costs at most a few thousand steps here.
 */
export function jsonBodyGuard(req: Request, _res: Response, next: NextFunction): void {
  if (req.body === undefined || req.body === null || typeof req.body !== 'object') return next();
  const stack: { value: object; depth: number; path: string }[] = [{ value: req.body as object, depth: 1, path: '' }];
  let nodes = 1;
  while (stack.length) {
    const { value, depth, path } = stack.pop()!;
    if (depth > MAX_JSON_DEPTH) return next(Problem.invalidInput(`The JSON body is nested deeper than ${MAX_JSON_DEPTH} levels.`));
    const wide = tooWide(value, path);
    if (wide) return next(wide);
    for (const [key, child] of Object.entries(value)) {
      if (++nodes > MAX_JSON_NODES) return next(Problem.invalidInput(`The JSON body has more than ${MAX_JSON_NODES} values.`));
      const field = path ? `${path}.${key}` : key;
      const problem = badString(key) ?? (typeof child === 'string' ? badString(child) : null);
      if (problem) return next(Problem.invalidInput(`${field} ${problem}`, [{ field, message: problem }]));
      if (child !== null && typeof child === 'object') stack.push({ value: child as object, depth: depth + 1, path: field });
    }
  }
  next();
}
