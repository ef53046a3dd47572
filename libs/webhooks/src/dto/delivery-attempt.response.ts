import { ApiProperty } from '@nestjs/swagger';
import { isoTimestamp } from '@app/core';
import type { AttemptRow } from '../delivery/attempts.repository';

export class WebhookDeliveryAttemptResponse {
  @ApiProperty({ format: 'uuid', description: 'Attempt id.' })
  id: string;
  @ApiProperty({ format: 'uuid', description: 'The delivery it belongs to.' })
  deliveryId: string;
  @ApiProperty({ type: 'integer', minimum: 1, description: "The attempt's number within the delivery (redeliveries go on counting)." })
  attempt: number;
  @ApiProperty({
    enum: ['succeeded', 'http_error', 'network_error', 'timeout', 'refused'],
    description:
      'succeeded: a 2xx answer; http_error: any other answer (a 3xx too); network_error: no answer (DNS, connection, TLS); ' +
      'timeout: no complete answer within the time limit; refused: the address or scheme is not allowed.',
  })
  result: string;
  @ApiProperty({ type: 'integer', format: 'int32', nullable: true, description: 'HTTP status of the answer; null if none came.' })
  responseCode: number | null;
  @ApiProperty({ type: 'integer', format: 'int32', description: 'From sending the request to the end of the answer, in milliseconds.' })
  durationMs: number;
  @ApiProperty({ type: 'string', nullable: true, maxLength: 500, description: 'Why the attempt failed; null for a success.' })
  error: string | null;
  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'string' },
    nullable: true,
    example: { 'content-type': 'text/plain', 'x-request-id': 'abc123' },
    description: 'The answer\'s headers (lower-case names, repeated ones joined with ", "), at most 8 KiB in all; null if no answer came.',
  })
  responseHeaders: Record<string, string> | null;
  @ApiProperty({ description: 'Headers beyond the 8 KiB were left out.' })
  responseHeadersTruncated: boolean;
  @ApiProperty({
    type: 'string',
    nullable: true,
    maxLength: 5464,
    description: 'The first 4 KiB of the answer body, as text, or in base64 if it is not UTF-8 text; null if no answer came.',
  })
  responseBody: string | null;
  @ApiProperty({ enum: ['utf8', 'base64'], nullable: true, description: 'How `responseBody` is written; null if no answer came.' })
  responseBodyEncoding: string | null;
  @ApiProperty({ description: 'The body was longer than the 4 KiB kept.' })
  responseBodyTruncated: boolean;
  @ApiProperty({ format: 'date-time', description: 'When the request was sent.' })
  attemptedAt: string;

  static fromRow(row: AttemptRow): WebhookDeliveryAttemptResponse {
    return {
      id: row.id,
      deliveryId: row.delivery_id,
      attempt: row.attempt,
      result: row.result,
      responseCode: row.response_code,
      durationMs: row.duration_ms,
      error: row.error,
      responseHeaders: row.response_headers,
      responseHeadersTruncated: row.response_headers_truncated,
      responseBody: row.response_body,
      responseBodyEncoding: row.response_body_encoding,
      responseBodyTruncated: row.response_body_truncated,
      attemptedAt: isoTimestamp(row.created_at),
    };
  }
}
