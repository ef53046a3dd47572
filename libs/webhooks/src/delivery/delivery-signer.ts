import { Injectable } from '@nestjs/common';
import { SecretBox } from '@app/core';
import type { EndpointRow } from '../webhooks.repository';
import type { DeliveryRow } from './deliveries.repository';
import { signatureHeader } from './webhook-signature';

/** The Standard Webhooks headers of an attempt, signed with the endpoint's secret (and the previous one while it overlaps). */
@Injectable()
export class DeliverySigner {
  constructor(private readonly secrets: SecretBox) {}

  headers(endpoint: EndpointRow, delivery: DeliveryRow): Record<string, string> {
    const timestamp = Math.floor(Date.now() / 1000);
    const secrets = [this.secrets.open(endpoint.secret_sealed)];
    if (endpoint.previous_secret_sealed && endpoint.previous_secret_expires_at && endpoint.previous_secret_expires_at > new Date()) {
      secrets.push(this.secrets.open(endpoint.previous_secret_sealed));
    }
    return {
      'webhook-id': delivery.message_id,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signatureHeader(secrets, delivery.message_id, timestamp, delivery.body),
    };
  }
}
