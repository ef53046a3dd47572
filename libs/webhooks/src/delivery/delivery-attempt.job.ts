import { Injectable, OnModuleInit } from '@nestjs/common';
import { AppConfig, JobQueue } from '@app/core';
import { EndpointRow, WebhooksRepository } from '../webhooks.repository';
import { DeliveriesRepository, DeliveryRow } from './deliveries.repository';
import { DeliveryOutcomes } from './delivery-outcomes';
import { DELIVERY_JOB, DeliveryJob, DeliveryOutbox } from './delivery-outbox';
import { DeliverySigner } from './delivery-signer';
import { WebhookSender } from './webhook-sender';

/** Longer than an attempt can last (WEBHOOKS_TIMEOUT_SECONDS, at most 15) plus recording it; a crashed holder's slot frees itself. */
const LEASE_SECONDS = 30;
/** Time to record an attempt's outcome, kept free at the end of the lease. */
const RECORD_MS = 5_000;
/** A job for a busy endpoint comes back this much later. */
const BUSY_DELAY_SECONDS = 1;

/** A claimed attempt: the delivery (its attempt counted) and the endpoint it goes to, whose lease this process holds. */
interface Claim {
  delivery: DeliveryRow;
  endpoint: EndpointRow;
}

/**
 * The queue worker: one attempt per job, at most one in flight per endpoint (a lease on its row; a
 * busy endpoint's job comes back a second later while other endpoints' jobs proceed), each attempt
 * claimed by a guarded UPDATE, so two processes never send the same attempt. After a success the
 * lease holder goes on with the endpoint's other due deliveries, one at a time, so a burst to one
 * endpoint is not paced by the busy jobs coming back; those find their delivery done.
 */
@Injectable()
export class DeliveryAttemptJob implements OnModuleInit {
  constructor(
    private readonly deliveries: DeliveriesRepository,
    private readonly endpoints: WebhooksRepository,
    private readonly outbox: DeliveryOutbox,
    private readonly jobs: JobQueue,
    private readonly sender: WebhookSender,
    private readonly signer: DeliverySigner,
    private readonly outcomes: DeliveryOutcomes,
    private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    this.jobs.work<DeliveryJob>(DELIVERY_JOB, (job) => this.run(job), { concurrency: this.config.webhooks.concurrency });
  }

  async run(job: DeliveryJob): Promise<void> {
    const claim = await this.claim(job);
    if (claim === 'busy') return this.outbox.schedule(job, BUSY_DELAY_SECONDS);
    if (!claim) return;
    const leased = Date.now();
    try {
      let current: Claim | null = claim;
      while (current) {
        const startedAt = new Date();
        const result = await this.sender.send(
          current.endpoint.url,
          this.signer.headers(current.endpoint, current.delivery),
          current.delivery.body,
        );
        await this.outcomes.record(current.endpoint, current.delivery, startedAt, result);
        if (!result.ok || this.jobs.stopping || Date.now() - leased > this.drainMs) break;
        current = await this.claimNextDue(claim.endpoint.id);
      }
    } finally {
      await this.endpoints.release(claim.endpoint.id);
    }
  }

  /**
   * The job's attempt and its endpoint, in one place: null when there is nothing to send (the
   * delivery is done, gone or another job's; the endpoint disabled), 'busy' while another attempt
   * holds the endpoint. A claim holds the endpoint's lease; the caller releases it.
   */
  private async claim(job: DeliveryJob): Promise<Claim | 'busy' | null> {
    const found = await this.deliveries.findWithEndpoint(job.deliveryId);
    if (!found) return null;
    const { delivery, endpoint } = found;
    if (delivery.status !== 'pending' || (delivery.attempts !== job.attempt && delivery.attempts !== job.attempt + 1)) return null;
    if (!endpoint.enabled) {
      await this.deliveries.fail(delivery.id, 'the endpoint is disabled');
      return null;
    }
    if (!(await this.endpoints.lease(endpoint.id, LEASE_SECONDS))) return 'busy';
    let claimed: DeliveryRow | null = null;
    try {
      claimed = await this.deliveries.claimAttempt(delivery.id, job.attempt, LEASE_SECONDS);
    } finally {
      if (!claimed) await this.endpoints.release(endpoint.id);
    }
    return claimed && { delivery: claimed, endpoint };
  }

  /** Read again: a change to its URL, secret or state applies from the next delivery on. */
  private async claimNextDue(endpointId: string): Promise<Claim | null> {
    const endpoint = await this.endpoints.findById(endpointId);
    if (!endpoint?.enabled) return null;
    const delivery = await this.deliveries.claimNextDue(endpointId);
    return delivery ? { delivery, endpoint } : null;
  }

  /** The lease holder starts further attempts only while a whole one still fits in the lease. */
  private get drainMs(): number {
    return LEASE_SECONDS * 1000 - this.config.webhooks.timeoutSeconds * 1000 - RECORD_MS;
  }
}
