import { applyDecorators } from '@nestjs/common';
import { ApiExtraModels, ApiProperty, ApiPropertyOptional, ApiResponse, ApiResponseOptions } from '@nestjs/swagger';
import { ProblemCode } from '../errors/problem';
import { PROBLEM_CODES, USUAL_CODES } from '../errors/problem-codes';
import { problemResponse } from './problem-responses';

export class FieldErrorResponse {
  @ApiProperty({ example: 'pageSize', description: 'The input field at fault (dotted path).' })
  field: string;
  @ApiProperty({ example: 'pageSize must be a whole number from 1 to 100', description: 'What is wrong with it.' })
  message: string;
}

/** RFC 9457 problem details, the body of every error response. */
export class ProblemResponse {
  @ApiProperty({ example: '/problems/not-found', description: 'URI reference naming the problem type.' })
  type: string;
  @ApiProperty({ example: 'Not Found', description: 'Short summary of the status.' })
  title: string;
  @ApiProperty({ type: 'integer', example: 404, description: 'HTTP status code.' })
  status: number;
  @ApiProperty({ example: 'Service not found.', description: 'Explanation for this occurrence.' })
  detail: string;
  @ApiProperty({
    enum: Object.keys(PROBLEM_CODES),
    enumName: 'ProblemCode',
    example: 'not_found',
    description: 'Stable machine-readable error code; each response lists the codes that operation answers with its status.',
  })
  code: ProblemCode;
  @ApiProperty({ example: '6f1c1a52-3c1e-4a55-9d0e-2f0a5b7c9d11', description: 'Id of the request, also in X-Request-Id.' })
  requestId: string;
  @ApiPropertyOptional({ type: () => [FieldErrorResponse], description: 'Field errors, for invalid input.' })
  errors?: FieldErrorResponse[];
}

/** Codes by status: `{ 401: ['invalid_mfa_token', 'invalid_code'] }`. */
export type ProblemCodesByStatus = Partial<Record<number, ProblemCode[]>>;

/**
 * Documents the problem responses an operation can give and, for each status, the codes it
 * answers with it (the `code` enum and the description). A bare status stands for its usual code
 * (400 invalid_input, 404 not_found, ...); 409 and the other statuses without one need their codes.
 * What every operation can answer (401 and 403 insufficient_scope with a token, 400, 413 and 415
 * with a body, the idempotency codes, 429, 500, 503) is added to the document in one place
 * (apps/api/src/http/openapi-responses.ts).
 */
export function ApiProblems(...specs: (number | ProblemCodesByStatus)[]): MethodDecorator & ClassDecorator {
  const byStatus = new Map<number, ProblemCode[]>();
  for (const spec of specs) {
    const entries: [number, ProblemCode[]][] =
      typeof spec === 'number' ? [[spec, usualCodes(spec)]] : Object.entries(spec).map(([status, codes]) => [Number(status), codes ?? []]);
    for (const [status, codes] of entries) byStatus.set(status, [...(byStatus.get(status) ?? []), ...codes]);
  }
  return applyDecorators(
    ApiExtraModels(ProblemResponse, FieldErrorResponse),
    ...[...byStatus].map(([status, codes]) => ApiResponse({ status, ...problemResponse(status, codes) } as ApiResponseOptions)),
  );
}

function usualCodes(status: number): ProblemCode[] {
  const codes = USUAL_CODES[status];
  if (!codes) throw new Error(`@ApiProblems(${status}): name the codes, e.g. { ${status}: ['...'] }`);
  return codes;
}
