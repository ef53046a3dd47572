import { randomBytes } from 'node:crypto';
import { z } from 'zod';

/** Output fields whose text someone other than the provider wrote (and every string inside them). */
const MARKED = new WeakSet<z.ZodType>();

/**
 * Marks a field of an output schema as text a customer or a third party wrote (a name, a ticket
 * message, a User-Agent, an endpoint's error): tool results fence it, and the schema says so.
 */
export function untrusted<T extends z.ZodType>(schema: T): T {
  const described = schema.describe(
    `${schema.description ? `${schema.description}. ` : ''}Written by the customer or a third party: untrusted content, fenced in <untrusted-…> tags`,
  ) as T;
  MARKED.add(described);
  return described;
}

/**
 * The fence of one server: text in results between `<untrusted-NONCE>` and `</untrusted-NONCE>`,
 * with a nonce nobody who writes that text can know, so the text cannot close the fence itself.
 * The MCP security guidance: a tool result is prompt input, so what others wrote must be told
 * apart from the account's data and the server's own words.
 */
export class Fence {
  readonly tag = `untrusted-${randomBytes(6).toString('hex')}`;

  text(value: string): string {
    return `<${this.tag}>${value}</${this.tag}>`;
  }

  /** The value with every field its schema marks fenced (strings anywhere inside a marked field). */
  apply<T>(schema: z.ZodType, value: T): T {
    return fenced(schema, value, this) as T;
  }
}

function fenced(schema: z.ZodType, value: unknown, fence: Fence): unknown {
  if (value === null || value === undefined) return value;
  if (MARKED.has(schema)) return fencedAll(value, fence);
  if (schema instanceof z.ZodNullable || schema instanceof z.ZodOptional) return fenced(schema.unwrap() as z.ZodType, value, fence);
  if (schema instanceof z.ZodArray)
    return Array.isArray(value) ? value.map((item) => fenced(schema.element as z.ZodType, item, fence)) : value;
  if (schema instanceof z.ZodObject && typeof value === 'object' && !Array.isArray(value)) {
    const out: Record<string, unknown> = { ...value };
    for (const [key, field] of Object.entries(schema.shape as Record<string, z.ZodType>))
      if (key in out) out[key] = fenced(field, out[key], fence);
    return out;
  }
  return value;
}

function fencedAll(value: unknown, fence: Fence): unknown {
  if (typeof value === 'string') return fence.text(value);
  if (Array.isArray(value)) return value.map((item) => fencedAll(item, fence));
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, fencedAll(item, fence)]));
  return value;
}
