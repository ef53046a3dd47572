import { ApiProperty } from '@nestjs/swagger';
import { isoTimestamp } from '@app/core';
import type { DeliveryRow } from '../delivery/deliveries.repository';

export class WebhookDeliveryResponse {
  @ApiProperty({ format: 'uuid', description: 'Delivery id.' })
  id: string;
  @ApiProperty({ format: 'uuid', description: 'The endpoint delivered to.' })
  webhookId: string;
  @ApiProperty({
    example: 'msg_2b1f0c3e9a7d4e6f8a0b1c2d3e4f5a6b',
    description: 'The `webhook-id` header: the same on every attempt and redelivery.',
  })
  messageId: string;
  @ApiProperty({ example: 'ssh_key.create', description: 'Event type (`type` in the body).' })
  eventType: string;
  @ApiProperty({ enum: ['pending', 'succeeded', 'failed'], description: 'pending: an attempt is due; failed: retries ran out.' })
  status: string;
  @ApiProperty({ type: 'integer', description: 'Attempts made so far (each listed at `.../deliveries/{deliveryId}/attempts`).' })
  attempts: number;
  @ApiProperty({ type: 'integer', format: 'int32', nullable: true, description: 'HTTP status of the last attempt; null if none answered.' })
  lastResponseCode: number | null;
  @ApiProperty({ type: 'integer', format: 'int32', nullable: true, description: 'Duration of the last attempt in milliseconds.' })
  lastDurationMs: number | null;
  @ApiProperty({ type: 'string', nullable: true, maxLength: 500, description: 'Why the last attempt failed; null after a success.' })
  lastError: string | null;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true, description: 'When the next attempt is due; null if none.' })
  nextAttemptAt: string | null;
  @ApiProperty({ format: 'date-time', description: 'When the event was queued.' })
  createdAt: string;

  static fromRow(row: DeliveryRow): WebhookDeliveryResponse {
    return {
      id: row.id,
      webhookId: row.endpoint_id,
      messageId: row.message_id,
      eventType: row.event_type,
      status: row.status,
      attempts: row.attempts,
      lastResponseCode: row.last_response_code,
      lastDurationMs: row.last_duration_ms,
      lastError: row.last_error,
      nextAttemptAt: isoTimestamp(row.next_attempt_at),
      createdAt: isoTimestamp(row.created_at),
    };
  }
}
