import { applyDecorators } from '@nestjs/common';
import { ApiExtraModels, ApiProperty, ApiPropertyOptional, ApiResponse, getSchemaPath } from '@nestjs/swagger';

export class FieldErrorResponse {
  @ApiProperty({ example: 'pageSize', description: 'The input field at fault (dotted path).' })
  field: string;
  @ApiProperty({ example: 'pageSize must not be greater than 100', description: 'What is wrong with it.' })
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
  @ApiProperty({ example: 'not_found', description: 'Stable machine-readable error code.' })
  code: string;
  @ApiProperty({ example: '6f1c1a52-3c1e-4a55-9d0e-2f0a5b7c9d11', description: 'Id of the request, also in X-Request-Id.' })
  requestId: string;
  @ApiPropertyOptional({ type: () => [FieldErrorResponse], description: 'Field errors, for invalid input.' })
  errors?: FieldErrorResponse[];
}

const DESCRIPTIONS: Record<number, string> = {
  400: 'Invalid input (invalid_input).',
  401: 'Missing, invalid, expired or revoked bearer token (unauthorized).',
  403: 'The API key lacks the scope this operation needs (insufficient_scope).',
  404: 'No such resource in this account (not_found).',
  409: 'The resource is in a state that does not allow this operation.',
  413: 'The request body is too large (payload_too_large).',
  422: 'The Idempotency-Key was used with a different request (idempotency_key_reused).',
  429: 'Rate limit exceeded (rate_limited); see Retry-After.',
  503: 'Temporarily unavailable (unavailable).',
};

/** Documents the problem responses an operation can give, all with the one error schema. */
export function ApiProblems(...statuses: number[]): MethodDecorator & ClassDecorator {
  const schema = { $ref: getSchemaPath(ProblemResponse) };
  return applyDecorators(
    ApiExtraModels(ProblemResponse, FieldErrorResponse),
    ...statuses.map((status) =>
      ApiResponse({ status, description: DESCRIPTIONS[status] ?? 'Error.', content: { 'application/problem+json': { schema } } }),
    ),
  );
}
