import { escapeHtml } from '../mail/mail-text';

/** Markup made by `markup` (or a constant of ours): inserted as it is; anything else is text and escaped. */
export class SafeHtml {
  constructor(readonly markup: string) {}
  toString(): string {
    return this.markup;
  }
}

export type HtmlValue = SafeHtml | string | number | boolean | null | undefined | HtmlValue[];

function insert(value: HtmlValue): string {
  if (value instanceof SafeHtml) return value.markup;
  if (Array.isArray(value)) return value.map(insert).join('');
  if (value === null || value === undefined || value === false) return '';
  return escapeHtml(String(value));
}

/**
 * The pages' one template tag: every value put into the markup is escaped (text and attribute
 * values alike; attributes are always quoted), unless it is markup this tag made. Arrays are
 * joined; null, undefined and false insert nothing, for optional parts. Not named `html`, which
 * Prettier would take for markup to reformat (whitespace, and the stylesheet's hash with it).
 */
export function markup(strings: TemplateStringsArray, ...values: HtmlValue[]): SafeHtml {
  return new SafeHtml(strings.reduce((out, text, i) => out + text + (i < values.length ? insert(values[i]) : ''), ''));
}
