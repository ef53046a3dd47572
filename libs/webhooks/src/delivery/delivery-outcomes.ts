import { Injectable, Logger } from '@nestjs/common';
import { ActivityLog, AppConfig, domainEvent, isoTimestamp, TransactionRunner } from '@app/core';
import { WebhookDisabledEvent } from '../webhooks.events';
import { EndpointRow, WebhooksRepository } from '../webhooks.repository';
import { AttemptsRepository } from './attempts.repository';
import { DeliveriesRepository, DeliveryRow } from './deliveries.repository';
import { DeliveryOutbox } from './delivery-outbox';
import { Claim, EndpointLeasesRepository, Lease } from './endpoint-leases.repository';
import { retryDelaySeconds } from './retry-schedule';
import { SendResult } from './webhook-sender';

/** An attempt made: to the endpoint as read when the delivery was claimed. */
export interface Sent {
  endpoint: EndpointRow;
  delivery: DeliveryRow;
  startedAt: Date;
  result: SendResult;
}

/**
 * An attempt's outcome, then the lease holder's next claim. A success is one statement with the
 * claim (EndpointLeasesRepository); a failure is one transaction: the delivery's state, the attempt
 * in its history, the next attempt's job, and the endpoint's failure streak (disabled, recorded and
 * announced when it lasted WEBHOOKS_DISABLE_AFTER_SECONDS).
 */
@Injectable()
export class DeliveryOutcomes {
  private readonly logger = new Logger('Webhooks');

  constructor(
    private readonly deliveries: DeliveriesRepository,
    private readonly attempts: AttemptsRepository,
    private readonly endpoints: WebhooksRepository,
    private readonly leases: EndpointLeasesRepository,
    private readonly outbox: DeliveryOutbox,
    private readonly activity: ActivityLog,
    private readonly tx: TransactionRunner,
    private readonly config: AppConfig,
  ) {}

  /**
   * Records an attempt made under `lease` and (when `next`) claims the endpoint's next due delivery;
   * null when the lease is no longer the holder's.
   */
  async record(lease: Lease, { endpoint, delivery, startedAt, result }: Sent, next: boolean): Promise<Claim | null> {
    if (result.ok) return this.leases.succeedAndClaimNext(lease, delivery, startedAt, result, next);
    await this.recordFailure(endpoint, delivery, startedAt, result);
    return next ? this.leases.claimNext(lease) : { endpoint, delivery: null };
  }

  private async recordFailure(endpoint: EndpointRow, delivery: DeliveryRow, startedAt: Date, result: SendResult): Promise<void> {
    const { retryBaseSeconds, disableAfterSeconds } = this.config.webhooks;
    let retryIn: number | null = retryDelaySeconds(delivery.attempts, retryBaseSeconds);
    if (Date.now() + retryIn * 1000 > delivery.retry_until.getTime()) retryIn = null;
    this.logger.warn(`Delivery ${delivery.id} to endpoint ${endpoint.id}, attempt ${delivery.attempts}: ${result.error}`);
    await this.tx.run(async (m, publish) => {
      await this.deliveries.recordOutcome(m, delivery.id, { ...result, retryInSeconds: retryIn });
      await this.attempts.insert(m, delivery.id, delivery.attempts, startedAt, result);
      if (retryIn !== null) {
        await this.outbox.schedule({ endpointId: endpoint.id, deliveryId: delivery.id, attempt: delivery.attempts }, retryIn, m);
      }
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
