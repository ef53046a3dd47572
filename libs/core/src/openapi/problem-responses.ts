import { PROBLEM_TITLES, ProblemCode, problemTypeUri } from '../errors/problem';
import { PROBLEM_CODES } from '../errors/problem-codes';

export const PROBLEM_MEDIA_TYPE = 'application/problem+json';
const PROBLEM_SCHEMA_REF = '#/components/schemas/ProblemResponse';

/** A problem response of the document: its `code` enum lists what the operation answers with this status. */
export interface ProblemResponseObject {
  description: string;
  headers?: Record<string, unknown>;
  content: { [PROBLEM_MEDIA_TYPE]: { schema: { allOf: [{ $ref: string }, CodeSchema] } } };
}

interface CodeSchema {
  properties: { code: { type: 'string'; enum: ProblemCode[] } };
  required: ['code'];
}

/** Refuses a code under a status it never comes with: the document would promise what the API cannot answer. */
export function checkProblemCodes(status: number, codes: ProblemCode[]): void {
  for (const code of codes) {
    const info = PROBLEM_CODES[code];
    if (!info) throw new Error(`Unknown problem code ${code}`);
    if (!info.statuses.includes(status)) throw new Error(`Problem code ${code} comes with ${info.statuses.join(' or ')}, not ${status}`);
  }
  if (!codes.length) throw new Error(`Name the codes of the ${status} response`);
}

/** The response object for `status` answering `codes`: a description listing each code, and the `code` enum. */
export function problemResponse(status: number, codes: ProblemCode[]): ProblemResponseObject {
  checkProblemCodes(status, codes);
  const unique = [...new Set(codes)];
  const lines = unique.map((code) => `- \`${code}\`: ${PROBLEM_CODES[code].meaning}`);
  return {
    description: `${PROBLEM_TITLES[status] ?? 'Error'} (problem+json), with \`code\`:\n${lines.join('\n')}`,
    content: {
      [PROBLEM_MEDIA_TYPE]: {
        schema: {
          allOf: [{ $ref: PROBLEM_SCHEMA_REF }, { properties: { code: { type: 'string', enum: unique } }, required: ['code'] }],
        },
      },
    },
  };
}

/** What `detail` says for the codes most answers carry; other codes show their meaning. */
const EXAMPLE_DETAILS: Partial<Record<ProblemCode, string>> = {
  invalid_input: 'pageSize must be a whole number from 1 to 100',
  unauthorized: 'A valid bearer token is required.',
  insufficient_scope: 'This operation needs an API key with the "write" scope.',
  not_found: 'Service not found.',
  invalid_state: 'The machine has no VNC console, or it is not running.',
  action_in_progress: 'Another action on this instance is still running.',
  rate_limited: 'Too many requests. Retry in 42 seconds.',
  internal_error: 'An unexpected error occurred. Quote the request id when you contact support.',
  unavailable: 'The service is temporarily unavailable. Retry shortly.',
};

/** An example body of a problem with this status and code, as the API writes it. */
export function problemExample(status: number, code: ProblemCode): Record<string, unknown> {
  const detail = EXAMPLE_DETAILS[code] ?? PROBLEM_CODES[code].meaning.replace(/`/g, '');
  return {
    type: problemTypeUri(code),
    title: PROBLEM_TITLES[status] ?? 'Error',
    status,
    detail,
    code,
    requestId: '6f1c1a52-3c1e-4a55-9d0e-2f0a5b7c9d11',
    ...(code === 'invalid_input' ? { errors: [{ field: 'pageSize', message: detail }] } : {}),
  };
}

/** The codes a response of the document lists for its problem; empty when it is not a problem response. */
export function documentedProblemCodes(response: unknown): string[] {
  const content = (response as { content?: Record<string, { schema?: { allOf?: unknown[] } }> } | undefined)?.content;
  const parts = content?.[PROBLEM_MEDIA_TYPE]?.schema?.allOf ?? [];
  for (const part of parts) {
    const codes = (part as { properties?: { code?: { enum?: unknown } } })?.properties?.code?.enum;
    if (Array.isArray(codes)) return codes.map(String);
  }
  return [];
}
