import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { ActivityLog, AppConfig, domainEvent, isoTimestamp, JobQueue, SecretBox, TransactionRunner } from '@app/core';
import { WebhookDisabledEvent } from '../webhooks.events';
import { EndpointRow, WebhooksRepository } from '../webhooks.repository';
import { AttemptsRepository } from './attempts.repository';
import { DeliveriesRepository, DeliveryRow } from './deliveries.repository';
import { DELIVERY_JOB, DeliveryJob, DeliveryOutbox } from './delivery-outbox';
import { retryDelaySeconds } from './retry-schedule';
import { SendResult, WebhookSender } from './webhook-sender';
import { signatureHeader } from './webhook-signature';

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
  private readonly logger = new Logger('Webhooks');

  constructor(
    private readonly deliveries: DeliveriesRepository,
    private readonly attempts: AttemptsRepository,
    private readonly endpoints: WebhooksRepository,
    private readonly outbox: DeliveryOutbox,
    private readonly jobs: JobQueue,
    private readonly sender: WebhookSender,
    private readonly secrets: SecretBox,
    private readonly tx: TransactionRunner,
    private readonly activity: ActivityLog,
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
        const result = await this.sender.send(current.endpoint.url, this.headers(current), current.delivery.body);
        await this.recordOutcome(current, startedAt, result);
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

  private headers({ endpoint, delivery }: Claim): Record<string, string> {
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

  private async recordOutcome({ endpoint, delivery }: Claim, startedAt: Date, result: SendResult): Promise<void> {
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
