import { PROBLEM_TITLES, ProblemCode } from '../errors/problem';
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
