import { escapeHtml, unlinkable } from './mail-text';
import type { MailMessage } from './mailer';

export interface CustomerMail {
  subject: string;
  /** Paragraphs of plain text; customer-written parts already passed through `unlinkable`. */
  lines: string[];
  action?: { label: string; url: string };
}

/**
 * The one layout of a mail to a customer, as text and HTML: a greeting, the paragraphs, an optional
 * link, the signature. The name is the customer's own text: it never forges a line or becomes a link.
 */
export function customerMail(to: string, name: string, mail: CustomerMail): MailMessage {
  const greeting = `Hello ${unlinkable(name)},`;
  const action = mail.action;
  const text = [
    greeting,
    '',
    ...mail.lines.flatMap((l) => [l, '']),
    ...(action ? [`${action.label}: ${action.url}`, ''] : []),
    '-- Hosting Account',
  ].join('\n');
  const html = [
    '<!doctype html><html><body style="font-family: sans-serif">',
    `<p>${escapeHtml(greeting)}</p>`,
    ...mail.lines.map((l) => `<p>${escapeHtml(l)}</p>`),
    ...(action ? [`<p><a href="${escapeHtml(action.url)}">${escapeHtml(action.label)}</a></p>`] : []),
    '<p>-- Hosting Account</p></body></html>',
  ].join('\n');
  return { to, subject: mail.subject, text, html };
}
