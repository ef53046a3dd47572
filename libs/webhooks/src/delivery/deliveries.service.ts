import { randomUUID } from 'node:crypto';
import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import {
  ActivityEntry,
  ActivityLog,
  AppConfig,
  domainEvent,
  isoTimestamp,
  JobOptions,
  JobQueue,
  Paginated,
  paginated,
  PageQuery,
  Principal,
  Problem,
  SecretBox,
  TransactionRunner,
  WebhookDisabledEvent,
} from '@app/core';
import { WebhookDeliveryAttemptResponse } from '../dto/delivery-attempt.response';
import { WebhookDeliveryResponse } from '../dto/delivery.response';
import { EndpointRow, WebhooksRepository } from '../webhooks.repository';
import { WebhooksService } from '../webhooks.service';
import { AttemptsRepository } from './attempts.repository';
import { DeliveriesRepository, DeliveryRow } from './deliveries.repository';
import { retryDelaySeconds } from './retry-schedule';
import { SendResult, WebhookSender } from './webhook-sender';
import { signatureHeader } from './webhook-signature';

export const DELIVERY_JOB = 'webhook-delivery';
/** Longer than an attempt can last (WEBHOOKS_TIMEOUT_SECONDS, at most 15) plus recording it; a crashed holder's slot frees itself. */
const LEASE_SECONDS = 30;
/** Time to record an attempt's outcome, kept free at the end of the lease. */
const RECORD_MS = 5_000;
/** A job for a busy endpoint comes back this much later. */
const BUSY_DELAY_SECONDS = 1;
/** pg-boss retries a job whose handler threw (a database error), not a failed attempt: those are ours. */
const JOB_OPTIONS: JobOptions = { retryLimit: 3, retryDelaySeconds: 5, retryBackoff: true };

export interface DeliveryJob {
  deliveryId: string;
  /** Attempts made before this one: the claim succeeds only if the row still says so. */
  attempt: number;
}

@Injectable()
export class DeliveriesService implements OnModuleInit {
  private readonly logger = new Logger('Webhooks');

  constructor(
    private readonly deliveries: DeliveriesRepository,
    private readonly attemptsOf: AttemptsRepository,
    private readonly endpoints: WebhooksRepository,
    private readonly webhooks: WebhooksService,
    private readonly activity: ActivityLog,
    private readonly jobs: JobQueue,
    private readonly sender: WebhookSender,
    private readonly secrets: SecretBox,
    private readonly tx: TransactionRunner,
    private readonly config: AppConfig,
  ) {}

  /** The lease holder starts further attempts only while a whole one still fits in the lease. */
  private get drainMs(): number {
    return LEASE_SECONDS * 1000 - this.config.webhooks.timeoutSeconds * 1000 - RECORD_MS;
  }

  onModuleInit(): void {
    this.activity.onRecorded(async (manager, entry) => {
      // A reset through the mailed link takes the account back: endpoints someone else may have
      // added stop first, so not even the reset itself reaches them (issue 26, finding 5).
      if (entry.action === 'auth.password_reset') await this.webhooks.disableAllIn(manager, entry.accountId, 'password_reset');
      await this.fanOut(manager, entry);
    });
    this.jobs.work<DeliveryJob>(DELIVERY_JOB, (job) => this.attempt(job), { concurrency: this.config.webhooks.concurrency });
  }

  /** In the recording transaction: one delivery per enabled subscribed endpoint, so a delivery exists iff the change committed. */
  async fanOut(manager: EntityManager, entry: ActivityEntry): Promise<void> {
    if (entry.action === 'webhook.test') return; // goes to the tested endpoint only
    for (const endpointId of await this.endpoints.subscribed(manager, entry.accountId, entry.action)) {
      await this.enqueue(manager, endpointId, entry);
    }
  }

  async list(accountId: string, webhookId: string, query: PageQuery): Promise<Paginated<WebhookDeliveryResponse>> {
    await this.webhooks.findOneForAccount(accountId, webhookId);
    const { rows, total } = await this.deliveries.page(webhookId, query);
    return paginated(rows.map(WebhookDeliveryResponse.fromRow), query, total);
  }

  /** Every attempt of one delivery, newest first: the delivery row keeps only the last one's outcome. */
  async attempts(
    accountId: string,
    webhookId: string,
    deliveryId: string,
    query: PageQuery,
  ): Promise<Paginated<WebhookDeliveryAttemptResponse>> {
    await this.webhooks.findOneForAccount(accountId, webhookId);
    if (!(await this.deliveries.findForEndpoint(webhookId, deliveryId))) throw Problem.notFound('Delivery');
    const { rows, total } = await this.attemptsOf.page(deliveryId, query);
    return paginated(rows.map(WebhookDeliveryAttemptResponse.fromRow), query, total);
  }

  async sendTest(caller: Principal, webhookId: string): Promise<WebhookDeliveryResponse> {
    const { accountId } = caller;
    const row = await this.tx.run(async (m) => {
      const endpoint = await this.endpoints.findOneForAccount(accountId, webhookId, m);
      if (!endpoint) throw Problem.notFound('Webhook');
      if (!endpoint.enabled) throw Problem.conflict('invalid_state', 'The endpoint is disabled; enable it first.');
      const entry = await this.activity.record(m, {
        accountId,
        caller,
        action: 'webhook.test',
        entity: { type: 'webhook', id: webhookId },
        details: { url: endpoint.url },
      });
      return this.enqueue(m, webhookId, entry);
    });
    return WebhookDeliveryResponse.fromRow(row);
  }

  async redeliver(accountId: string, webhookId: string, deliveryId: string): Promise<WebhookDeliveryResponse> {
    await this.webhooks.findOneForAccount(accountId, webhookId);
    const row = await this.tx.run(async (m) => {
      const reopened = await this.deliveries.reopen(m, webhookId, deliveryId, this.config.webhooks.retryWindowSeconds);
      if (!reopened) throw Problem.notFound('Delivery');
      await this.jobs.send<DeliveryJob>(DELIVERY_JOB, { deliveryId, attempt: reopened.attempts }, JOB_OPTIONS, m);
      return reopened;
    });
    return WebhookDeliveryResponse.fromRow(row);
  }

  private async enqueue(manager: EntityManager, endpointId: string, entry: ActivityEntry): Promise<DeliveryRow> {
    const timestamp = isoTimestamp(entry.createdAt);
    const data = {
      id: entry.id,
      entity: entry.entity,
      actor: entry.actor,
      status: entry.status,
      createdAt: timestamp,
      details: entry.details,
    };
    const row = await this.deliveries.insert(manager, {
      endpointId,
      messageId: `msg_${randomUUID().replace(/-/g, '')}`,
      eventType: entry.action,
      body: JSON.stringify({ type: entry.action, timestamp, data }),
      retryWindowSeconds: this.config.webhooks.retryWindowSeconds,
    });
    await this.jobs.send<DeliveryJob>(DELIVERY_JOB, { deliveryId: row.id, attempt: 0 }, JOB_OPTIONS, manager);
    return row;
  }

  /**
   * One attempt: at most one in flight per endpoint (a lease on its row; a busy endpoint's job
   * comes back a second later while other endpoints' jobs proceed), and each attempt claimed by a
   * guarded UPDATE, so two processes never send the same attempt. After a success the lease holder
   * goes on with the endpoint's other due deliveries, one at a time, so a burst to one endpoint is
   * not paced by the busy jobs coming back; those find their delivery done.
   */
  async attempt(job: DeliveryJob): Promise<void> {
    const delivery = await this.deliveries.findById(job.deliveryId);
    if (!delivery || delivery.status !== 'pending' || (delivery.attempts !== job.attempt && delivery.attempts !== job.attempt + 1)) return;
    const endpoint = await this.endpoints.findById(delivery.endpoint_id);
    if (!endpoint) return;
    if (!endpoint.enabled) return this.deliveries.fail(delivery.id, 'the endpoint is disabled');
    if (!(await this.endpoints.lease(endpoint.id, LEASE_SECONDS))) {
      return this.jobs.send<DeliveryJob>(DELIVERY_JOB, job, { ...JOB_OPTIONS, startAfterSeconds: BUSY_DELAY_SECONDS });
    }
    const leased = Date.now();
    try {
      let claimed = await this.deliveries.claimAttempt(delivery.id, job.attempt, LEASE_SECONDS);
      let current = endpoint;
      while (claimed) {
        const startedAt = new Date();
        const result = await this.sender.send(current.url, this.headers(current, claimed), claimed.body);
        await this.recordOutcome(current, claimed, startedAt, result);
        if (!result.ok || this.jobs.stopping || Date.now() - leased > this.drainMs) break;
        // Read again: a change to its URL, secret or state applies from the next delivery on.
        const reloaded = await this.endpoints.findById(endpoint.id);
        if (!reloaded?.enabled) break;
        current = reloaded;
        claimed = await this.deliveries.claimNextDue(endpoint.id);
      }
    } finally {
      await this.endpoints.release(endpoint.id);
    }
  }

  private headers(endpoint: EndpointRow, delivery: DeliveryRow): Record<string, string> {
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

  private async recordOutcome(endpoint: EndpointRow, delivery: DeliveryRow, startedAt: Date, result: SendResult): Promise<void> {
    const { retryBaseSeconds, disableAfterSeconds } = this.config.webhooks;
    let retryIn: number | null = null;
    if (!result.ok) {
      retryIn = retryDelaySeconds(delivery.attempts, retryBaseSeconds);
      if (Date.now() + retryIn * 1000 > delivery.retry_until.getTime()) retryIn = null;
      this.logger.warn(`Delivery ${delivery.id} to endpoint ${endpoint.id}, attempt ${delivery.attempts}: ${result.error}`);
    }
    await this.tx.run(async (m, publish) => {
      await this.deliveries.recordOutcome(m, delivery.id, { ...result, retryInSeconds: retryIn });
      await this.attemptsOf.insert(m, delivery.id, delivery.attempts, startedAt, result);
      if (result.ok) return this.endpoints.markSucceeded(m, endpoint.id);
      if (retryIn !== null) {
        await this.jobs.send<DeliveryJob>(
          DELIVERY_JOB,
          { deliveryId: delivery.id, attempt: delivery.attempts },
          { ...JOB_OPTIONS, startAfterSeconds: retryIn },
          m,
        );
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
