import { Injectable, OnModuleInit } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { ActivityEntry, ActivityLog } from '@app/core';
import { WebhooksRepository } from '../webhooks.repository';
import { WebhooksService } from '../webhooks.service';
import { DeliveryOutbox } from './delivery-outbox';

/** The activity log's hook: every recorded entry becomes a delivery to each endpoint subscribed to it. */
@Injectable()
export class DeliveryFanOut implements OnModuleInit {
  constructor(
    private readonly activity: ActivityLog,
    private readonly endpoints: WebhooksRepository,
    private readonly webhooks: WebhooksService,
    private readonly outbox: DeliveryOutbox,
  ) {}

  onModuleInit(): void {
    this.activity.onRecorded(async (manager, entry) => {
      // A reset through the mailed link takes the account back: endpoints someone else may have
      // added stop first, so not even the reset itself reaches them.
      if (entry.action === 'auth.password_reset') await this.webhooks.disableAllIn(manager, entry.accountId, 'password_reset');
      await this.fanOut(manager, entry);
    });
  }

  /** In the recording transaction: one delivery per enabled subscribed endpoint, so a delivery exists iff the change committed. */
  async fanOut(manager: EntityManager, entry: ActivityEntry): Promise<void> {
    if (entry.action === 'webhook.test') return; // goes to the tested endpoint only
    for (const endpointId of await this.endpoints.subscribed(manager, entry.accountId, entry.action)) {
      await this.outbox.enqueue(manager, endpointId, entry);
    }
  }
}
