import { errorPage, markup, Page, PROBLEM_CODES, PROBLEM_TITLES, ProblemCode, problemTypeUri, SafeHtml } from '@app/core';

/** The code of a problem type's page (`invalid-state`), or undefined for a name that is none. */
export function problemCodeOf(slug: string): ProblemCode | undefined {
  const code = slug.replace(/-/g, '_');
  return /^[a-z0-9-]+$/.test(slug) && Object.hasOwn(PROBLEM_CODES, code) ? (code as ProblemCode) : undefined;
}

/** The table's text, whose `code` spans become <code>. */
function prose(text: string): SafeHtml {
  return markup`${text.split('`').map((part, i) => (i % 2 ? markup`<code>${part}</code>` : part))}`;
}

const statusLine = (code: ProblemCode) =>
  PROBLEM_CODES[code].statuses.map((status) => `${status} ${PROBLEM_TITLES[status] ?? ''}`.trim()).join(', ');

/**
 * The page a problem's `type` names (RFC 9457: a type URI should lead to documentation a person
 * can read): what the code means and what a client should do, from the codes table.
 */
export function problemPage(code: ProblemCode): Page {
  const info = PROBLEM_CODES[code];
  return {
    status: 200,
    title: `Problem: ${code}`,
    body: markup`<p>An error answer of the hosting account API (<code>application/problem+json</code>) with <code>"code": "${code}"</code> and <code>"type": "${problemTypeUri(code)}"</code>.</p>
<dl>
<dt>Status</dt>
<dd>${statusLine(code)}</dd>
<dt>What it means</dt>
<dd>${prose(info.meaning)}</dd>
<dt>What to do</dt>
<dd>${prose(info.action)}</dd>
</dl>
<p>The answer's <code>detail</code> says what happened in that request; quote its <code>requestId</code> to support. <a href="/problems">Every problem type</a>.</p>`,
  };
}

export function problemIndexPage(): Page {
  const codes = Object.keys(PROBLEM_CODES) as ProblemCode[];
  return {
    status: 200,
    title: 'Problem types',
    body: markup`<p>Every error answer of the API has a <code>code</code> and a <code>type</code> that links here.</p>
<ul>${codes.map((code) => markup`<li><a href="${problemTypeUri(code)}"><code>${code}</code></a>: ${statusLine(code)}</li>`)}</ul>`,
  };
}

export function unknownProblemPage(slug: string): Page {
  return errorPage(
    404,
    'No such problem type',
    `The API has no problem type named "${slug}".`,
    markup`<p><a href="/problems">Every problem type</a>.</p>`,
  );
}
