import { Injectable } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import type {
  ApiKeyCreatedEvent,
  ApiKeyExpiringEvent,
  InstanceActionFinishedEvent,
  InstanceFaultEvent,
  ObjectStorageKeyRotatedEvent,
  ObjectStorageQuotaEvent,
  ServiceStatusChangedEvent,
  TicketClosedEvent,
  TicketRepliedEvent,
  WebhookDisabledEvent,
} from '@app/core';
import { NotificationsService } from './notifications.service';

/** The other areas' domain events (emitted after their transactions commit) become notifications. */
@Injectable()
export class NotificationEventsListener {
  constructor(private readonly notifications: NotificationsService) {}

  @OnEvent('ticket.replied', { async: true, promisify: true })
  ticketReplied(event: TicketRepliedEvent) {
    return this.notifications.record(event);
  }

  @OnEvent('ticket.closed', { async: true, promisify: true })
  ticketClosed(event: TicketClosedEvent) {
    return this.notifications.record(event);
  }

  @OnEvent('instance.action_succeeded', { async: true, promisify: true })
  actionSucceeded(event: InstanceActionFinishedEvent) {
    return this.notifications.record(event);
  }

  @OnEvent('instance.action_failed', { async: true, promisify: true })
  actionFailed(event: InstanceActionFinishedEvent) {
    return this.notifications.record(event);
  }

  @OnEvent('instance.fault', { async: true, promisify: true })
  instanceFault(event: InstanceFaultEvent) {
    return this.notifications.record(event);
  }

  @OnEvent('service.status_changed', { async: true, promisify: true })
  statusChanged(event: ServiceStatusChangedEvent) {
    return this.notifications.record(event);
  }

  @OnEvent('object_storage.credentials_rotated', { async: true, promisify: true })
  storageKeyRotated(event: ObjectStorageKeyRotatedEvent) {
    return this.notifications.record(event);
  }

  @OnEvent('object_storage.quota_warning', { async: true, promisify: true })
  storageQuota(event: ObjectStorageQuotaEvent) {
    return this.notifications.record(event);
  }

  @OnEvent('api_key.created', { async: true, promisify: true })
  apiKeyCreated(event: ApiKeyCreatedEvent) {
    return this.notifications.record(event);
  }

  @OnEvent('api_key.expiring', { async: true, promisify: true })
  apiKeyExpiring(event: ApiKeyExpiringEvent) {
    return this.notifications.record(event);
  }

  @OnEvent('webhook.disabled', { async: true, promisify: true })
  webhookDisabled(event: WebhookDisabledEvent) {
    return this.notifications.record(event);
  }
}
