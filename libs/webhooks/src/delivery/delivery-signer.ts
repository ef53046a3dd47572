import { Injectable } from '@nestjs/common';
import { SecretBox } from '@app/core';
import type { EndpointRow } from '../webhooks.repository';
import type { DeliveryRow } from './deliveries.repository';
import { signatureHeader } from './webhook-signature';

/** Opened secrets kept, by their sealed form (a drain signs many deliveries with one); the cache is emptied when full. */
const OPENED_KEPT = 1000;

/** The Standard Webhooks headers of an attempt, signed with the endpoint's secret (and the previous one while it overlaps). */
@Injectable()
export class DeliverySigner {
  private readonly opened = new Map<string, string>();

  constructor(private readonly secrets: SecretBox) {}

  headers(endpoint: EndpointRow, delivery: DeliveryRow): Record<string, string> {
    const timestamp = Math.floor(Date.now() / 1000);
    const secrets = [this.open(endpoint.secret_sealed)];
    if (endpoint.previous_secret_sealed && endpoint.previous_secret_expires_at && endpoint.previous_secret_expires_at > new Date()) {
      secrets.push(this.open(endpoint.previous_secret_sealed));
    }
    return {
      'webhook-id': delivery.message_id,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signatureHeader(secrets, delivery.message_id, timestamp, delivery.body),
    };
  }

  private open(sealed: string): string {
    let secret = this.opened.get(sealed);
    if (secret === undefined) {
      if (this.opened.size >= OPENED_KEPT) this.opened.clear();
      secret = this.secrets.open(sealed);
      this.opened.set(sealed, secret);
    }
    return secret;
  }
}
