import { Injectable } from '@nestjs/common';
import { Paginated, paginated, PageQuery, Problem } from '@app/core';
import { WebhookDeliveryAttemptResponse } from '../dto/delivery-attempt.response';
import { WebhookDeliveryResponse } from '../dto/delivery.response';
import { WebhooksService } from '../webhooks.service';
import { AttemptsRepository } from './attempts.repository';
import { DeliveriesRepository } from './deliveries.repository';

/** The delivery routes that read: an endpoint's deliveries, and a delivery's attempts. */
@Injectable()
export class DeliveryHistory {
  constructor(
    private readonly deliveries: DeliveriesRepository,
    private readonly attemptsOf: AttemptsRepository,
    private readonly webhooks: WebhooksService,
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
}
