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
 * Attempts' outcomes, then the lease holder's next claim. Successes are one statement with the
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
   * Records the attempts made under `lease` (successes, then at most one failure, last) and claims up
   * to `claim` more due deliveries; null when the lease is no longer the holder's. Successes take one
   * statement with the claim; a failure takes a transaction of its own, after the successes before it
   * (so the failure streak sees them in order).
   */
  async record(lease: Lease, sent: Sent[], claim: number): Promise<Claim | null> {
    const last = sent.at(-1);
    const failed = last && !last.result.ok ? last : null;
    const successes = (failed ? sent.slice(0, -1) : sent).map(({ delivery, startedAt, result }) => ({
      deliveryId: delivery.id,
      attempt: delivery.attempts,
      startedAt,
      result,
    }));
    if (!failed) return this.leases.recordAndClaim(lease, successes, claim);
    if (successes.length) await this.leases.recordAndClaim(lease, successes, 0);
    await this.recordFailure(failed.endpoint, failed.delivery, failed.startedAt, failed.result);
    return this.leases.recordAndClaim(lease, [], claim);
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
