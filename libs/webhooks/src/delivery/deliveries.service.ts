import { Injectable } from '@nestjs/common';
import { ActivityLog, AppConfig, Paginated, paginated, PageQuery, Principal, Problem, TransactionRunner } from '@app/core';
import { WebhookDeliveryAttemptResponse } from '../dto/delivery-attempt.response';
import { WebhookDeliveryResponse } from '../dto/delivery.response';
import { WebhooksRepository } from '../webhooks.repository';
import { WebhooksService } from '../webhooks.service';
import { AttemptsRepository } from './attempts.repository';
import { DeliveriesRepository } from './deliveries.repository';
import { DeliveryOutbox } from './delivery-outbox';

/** The delivery routes: history, attempts, a test event and a redelivery. */
@Injectable()
export class DeliveriesService {
  constructor(
    private readonly deliveries: DeliveriesRepository,
    private readonly attemptsOf: AttemptsRepository,
    private readonly endpoints: WebhooksRepository,
    private readonly webhooks: WebhooksService,
    private readonly outbox: DeliveryOutbox,
    private readonly activity: ActivityLog,
    private readonly tx: TransactionRunner,
    private readonly config: AppConfig,
  ) {}

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
      return this.outbox.enqueue(m, webhookId, entry);
    });
    return WebhookDeliveryResponse.fromRow(row);
  }

  async redeliver(accountId: string, webhookId: string, deliveryId: string): Promise<WebhookDeliveryResponse> {
    await this.webhooks.findOneForAccount(accountId, webhookId);
    const row = await this.tx.run(async (m) => {
      const reopened = await this.deliveries.reopen(m, webhookId, deliveryId, this.config.webhooks.retryWindowSeconds);
      if (!reopened) throw Problem.notFound('Delivery');
      await this.outbox.schedule({ endpointId: webhookId, deliveryId, attempt: reopened.attempts }, 0, m);
      return reopened;
    });
    return WebhookDeliveryResponse.fromRow(row);
  }
}
