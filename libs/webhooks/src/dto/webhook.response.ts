import { ApiProperty } from '@nestjs/swagger';
import { isoTimestamp } from '@app/core';
import type { EndpointRow } from '../webhooks.repository';

export class WebhookResponse {
  @ApiProperty({ format: 'uuid', description: 'Webhook endpoint id.' })
  id: string;
  @ApiProperty({ example: 'https://hooks.example.com/hosting', description: 'Where events are POSTed.' })
  url: string;
  @ApiProperty({ type: 'string', nullable: true, maxLength: 200, description: 'The note given; null if none.' })
  description: string | null;
  @ApiProperty({ type: [String], example: ['ssh_key.create'], description: 'Subscribed event types; `*` is every type.' })
  events: string[];
  @ApiProperty({ description: 'false: no deliveries (turned off, or disabled after 3 days of failures).' })
  enabled: boolean;
  @ApiProperty({
    type: 'string',
    format: 'date-time',
    nullable: true,
    description: 'Since when every delivery has failed; null when the last one succeeded.',
  })
  failingSince: string | null;
  @ApiProperty({
    type: 'string',
    format: 'date-time',
    nullable: true,
    description: 'After a rotation, until when the previous secret still signs beside the new one; null otherwise.',
  })
  previousSecretExpiresAt: string | null;
  @ApiProperty({ format: 'date-time', description: 'When the endpoint was added.' })
  createdAt: string;
  @ApiProperty({ format: 'date-time', description: 'When it last changed.' })
  updatedAt: string;

  static fromRow(row: EndpointRow): WebhookResponse {
    const overlap = row.previous_secret_expires_at && row.previous_secret_expires_at > new Date() ? row.previous_secret_expires_at : null;
    return {
      id: row.id,
      url: row.url,
      description: row.description,
      events: row.events,
      enabled: row.enabled,
      failingSince: isoTimestamp(row.failing_since),
      previousSecretExpiresAt: isoTimestamp(overlap),
      createdAt: isoTimestamp(row.created_at),
      updatedAt: isoTimestamp(row.updated_at),
    };
  }
}

export class WebhookWithSecretResponse extends WebhookResponse {
  @ApiProperty({
    example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    description: 'The signing secret (Standard Webhooks: `whsec_` and base64). Shown only in this response; store it now.',
  })
  secret: string;

  static withSecret(row: EndpointRow, secret: string): WebhookWithSecretResponse {
    return { ...WebhookResponse.fromRow(row), secret };
  }
}
