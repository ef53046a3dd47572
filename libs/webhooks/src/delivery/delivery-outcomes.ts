import { Injectable, Logger } from '@nestjs/common';
import { ActivityLog, AppConfig, domainEvent, isoTimestamp, TransactionRunner } from '@app/core';
import { WebhookDisabledEvent } from '../webhooks.events';
import { EndpointRow, WebhooksRepository } from '../webhooks.repository';
import { AttemptsRepository } from './attempts.repository';
import { DeliveriesRepository, DeliveryRow } from './deliveries.repository';
import { DeliveryOutbox } from './delivery-outbox';
import { retryDelaySeconds } from './retry-schedule';
import { SendResult } from './webhook-sender';

/**
 * An attempt's outcome, in one transaction: the delivery's state, the attempt in its history, the
 * next attempt's job, and the endpoint's failure streak (disabled, recorded and announced when it
 * lasted WEBHOOKS_DISABLE_AFTER_SECONDS).
 */
@Injectable()
export class DeliveryOutcomes {
  private readonly logger = new Logger('Webhooks');

  constructor(
    private readonly deliveries: DeliveriesRepository,
    private readonly attempts: AttemptsRepository,
    private readonly endpoints: WebhooksRepository,
    private readonly outbox: DeliveryOutbox,
    private readonly activity: ActivityLog,
    private readonly tx: TransactionRunner,
    private readonly config: AppConfig,
  ) {}

  async record(endpoint: EndpointRow, delivery: DeliveryRow, startedAt: Date, result: SendResult): Promise<void> {
    const { retryBaseSeconds, disableAfterSeconds } = this.config.webhooks;
    let retryIn: number | null = null;
    if (!result.ok) {
      retryIn = retryDelaySeconds(delivery.attempts, retryBaseSeconds);
      if (Date.now() + retryIn * 1000 > delivery.retry_until.getTime()) retryIn = null;
      this.logger.warn(`Delivery ${delivery.id} to endpoint ${endpoint.id}, attempt ${delivery.attempts}: ${result.error}`);
    }
    await this.tx.run(async (m, publish) => {
      await this.deliveries.recordOutcome(m, delivery.id, { ...result, retryInSeconds: retryIn });
      await this.attempts.insert(m, delivery.id, delivery.attempts, startedAt, result);
      if (result.ok) return this.endpoints.markSucceeded(m, endpoint.id);
      if (retryIn !== null) await this.outbox.schedule({ deliveryId: delivery.id, attempt: delivery.attempts }, retryIn, m);
      const disabled = await this.endpoints.markFailed(m, endpoint.id, disableAfterSeconds);
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
    });
  }
}
