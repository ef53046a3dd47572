import { Injectable, Logger } from '@nestjs/common';
import { AppConfig, TransactionRunner } from '@app/core';
import { EndpointRow } from '../webhooks.repository';
import { AttemptsRepository } from './attempts.repository';
import { DeliveriesRepository, DeliveryRow } from './deliveries.repository';
import { DeliveryOutbox } from './delivery-outbox';
import { EndpointFailures } from './endpoint-failures';
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
 * in its history, the next attempt's job, and the endpoint's failure streak (EndpointFailures).
 */
@Injectable()
export class DeliveryOutcomes {
  private readonly logger = new Logger('Webhooks');

  constructor(
    private readonly deliveries: DeliveriesRepository,
    private readonly attempts: AttemptsRepository,
    private readonly leases: EndpointLeasesRepository,
    private readonly outbox: DeliveryOutbox,
    private readonly failures: EndpointFailures,
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
    const { retryBaseSeconds } = this.config.webhooks;
    let retryIn: number | null = retryDelaySeconds(delivery.attempts, retryBaseSeconds);
    if (Date.now() + retryIn * 1000 > delivery.retry_until.getTime()) retryIn = null;
    this.logger.warn(`Delivery ${delivery.id} to endpoint ${endpoint.id}, attempt ${delivery.attempts}: ${result.error}`);
    await this.tx.run(async (m, publish) => {
      await this.deliveries.recordOutcome(m, delivery.id, { ...result, retryInSeconds: retryIn });
      await this.attempts.insert(m, delivery.id, delivery.attempts, startedAt, result);
      if (retryIn !== null) {
        await this.outbox.schedule({ endpointId: endpoint.id, deliveryId: delivery.id, attempt: delivery.attempts }, retryIn, m);
      }
      await this.failures.failed(m, publish, endpoint.id);
    });
  }
}
