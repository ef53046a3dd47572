import { Injectable } from '@nestjs/common';
import { ActivityLog, AppConfig, Principal, Problem, TransactionRunner } from '@app/core';
import { WebhookDeliveryResponse } from '../dto/delivery.response';
import { WebhooksRepository } from '../webhooks.repository';
import { WebhooksService } from '../webhooks.service';
import { DeliveriesRepository } from './deliveries.repository';
import { DeliveryOutbox } from './delivery-outbox';

/** The delivery routes that send: a test event and a redelivery (the history is DeliveryHistory). */
@Injectable()
export class DeliveriesService {
  constructor(
    private readonly deliveries: DeliveriesRepository,
    private readonly endpoints: WebhooksRepository,
    private readonly webhooks: WebhooksService,
    private readonly outbox: DeliveryOutbox,
    private readonly activity: ActivityLog,
    private readonly tx: TransactionRunner,
    private readonly config: AppConfig,
  ) {}

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
