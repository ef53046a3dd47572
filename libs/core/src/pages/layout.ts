import { createHash } from 'node:crypto';
import type { Response } from 'express';
import { markup, SafeHtml } from './html';

const CSS = `
body { margin: 0; padding: 2rem 1rem; background: #fff; color: #1a1a1a; font: 1rem/1.5 system-ui, sans-serif; }
main { max-width: 32rem; margin: 0 auto; }
h1 { font-size: 1.6rem; line-height: 1.25; }
label { display: block; margin-top: 1.25rem; font-weight: 600; }
input { display: block; box-sizing: border-box; width: 100%; margin-top: 0.25rem; padding: 0.5rem; border: 2px solid #555; border-radius: 4px; font: inherit; }
input[aria-invalid="true"] { border-color: #b00020; }
[hidden] { display: none; }
dt { margin-top: 1rem; font-weight: 600; }
dd { margin: 0.25rem 0 0; }
.hint { margin: 0.25rem 0 0; color: #555; font-size: 0.95rem; }
.error { margin: 0.25rem 0 0; color: #b00020; font-weight: 600; }
.alert, .done { margin: 1rem 0; padding: 0.75rem 1rem; border: 3px solid #b00020; }
.done { border-color: #1b5e20; }
.alert h2, .done h2 { margin: 0 0 0.5rem; font-size: 1.15rem; }
.alert a { color: #b00020; }
button { margin-top: 1.5rem; padding: 0.6rem 1.2rem; border: 0; border-radius: 4px; background: #0b57d0; color: #fff; font: inherit; font-weight: 600; cursor: pointer; }
:focus-visible { outline: 3px solid #f9a825; outline-offset: 2px; }
code { font-size: 0.95em; }
`;

/**
 * Nothing but this stylesheet may load or run: no script at all, forms post only to this origin,
 * no framing (clickjacking), no <base> that would redirect the form.
 */
export const PAGE_CSP = [
  "default-src 'none'",
  `style-src 'sha256-${createHash('sha256').update(CSS).digest('base64')}'`,
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

export interface Page {
  status: number;
  title: string;
  body: SafeHtml;
  /** The page shows errors: its title says so first, as screen reader users hear it on load. */
  failed?: boolean;
  headers?: Record<string, string>;
}

/** Outside any template, so the element's text is exactly what the CSP hash names. */
const STYLE = new SafeHtml(`<style>${CSS}</style>`);

export function renderPage(page: Page): string {
  const title = `${page.failed ? 'Error: ' : ''}${page.title} - Hosting account`;
  return markup`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="robots" content="noindex">
<title>${title}</title>
${STYLE}
</head>
<body>
<main>
<h1>${page.title}</h1>
${page.body}
</main>
</body>
</html>
`.markup;
}

/**
 * The token is in the page's address: no referrer, no cache, no sniffing, no frame. The pages
 * are answered whole by the API, so every response of theirs carries these, error pages too.
 */
export function sendPage(res: Response, page: Page): void {
  res.status(page.status);
  res.setHeader('Content-Type', 'text/html; charset=utf-8');
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Content-Security-Policy', PAGE_CSP);
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('X-Frame-Options', 'DENY');
  for (const [name, value] of Object.entries(page.headers ?? {})) res.setHeader(name, value);
  res.send(renderPage(page));
}

/** A page that only reports an error: the message is an alert, announced when the page loads. */
export function errorPage(
  status: number,
  title: string,
  message: string,
  more: SafeHtml = markup``,
  headers?: Record<string, string>,
): Page {
  return {
    status,
    title,
    failed: true,
    headers,
    body: markup`<div class="alert" role="alert"><p>${message}</p></div>
${more}`,
  };
}
