import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { ActivityLog, AppConfig, domainEvent, isoTimestamp, Publish } from '@app/core';
import { WebhookDisabledEvent } from '../webhooks.events';
import { WebhooksRepository } from '../webhooks.repository';

/**
 * An endpoint's failure streak: a failed attempt extends it, and once it has lasted
 * WEBHOOKS_DISABLE_AFTER_SECONDS the endpoint is disabled, recorded and announced, in the
 * transaction that recorded the failure.
 */
@Injectable()
export class EndpointFailures {
  constructor(
    private readonly endpoints: WebhooksRepository,
    private readonly activity: ActivityLog,
    private readonly config: AppConfig,
  ) {}

  async failed(m: EntityManager, publish: Publish, endpointId: string): Promise<void> {
    const disabled = await this.endpoints.markFailed(m, endpointId, this.config.webhooks.disableAfterSeconds);
    if (!disabled) return;
    const failingSince = isoTimestamp(disabled.failing_since ?? new Date());
    await this.activity.record(m, {
      accountId: disabled.account_id,
      action: 'webhook.disable',
      entity: { type: 'webhook', id: disabled.id },
      actor: { type: 'system', id: null, name: null },
      details: { url: disabled.url, failingSince, reason: 'deliveries_failing' },
    });
    publish(
      domainEvent<WebhookDisabledEvent>('webhook.disabled', disabled.account_id, {
        webhookId: disabled.id,
        url: disabled.url,
        failingSince,
      }),
    );
  }
}
