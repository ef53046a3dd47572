import { Injectable } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import type { DomainEventNamed } from '@app/core';
import { NotificationsService } from './notifications.service';

/** The other areas' domain events (emitted after their transactions commit) become notifications. */
@Injectable()
export class NotificationEventsListener {
  constructor(private readonly notifications: NotificationsService) {}

  @OnEvent('ticket.replied', { async: true, promisify: true })
  ticketReplied(event: DomainEventNamed<'ticket.replied'>) {
    return this.notifications.record(event);
  }

  @OnEvent('ticket.closed', { async: true, promisify: true })
  ticketClosed(event: DomainEventNamed<'ticket.closed'>) {
    return this.notifications.record(event);
  }

  @OnEvent('instance.action_succeeded', { async: true, promisify: true })
  actionSucceeded(event: DomainEventNamed<'instance.action_succeeded'>) {
    return this.notifications.record(event);
  }

  @OnEvent('instance.action_failed', { async: true, promisify: true })
  actionFailed(event: DomainEventNamed<'instance.action_failed'>) {
    return this.notifications.record(event);
  }

  @OnEvent('instance.fault', { async: true, promisify: true })
  instanceFault(event: DomainEventNamed<'instance.fault'>) {
    return this.notifications.record(event);
  }

  @OnEvent('instance.backup_failed', { async: true, promisify: true })
  backupFailed(event: DomainEventNamed<'instance.backup_failed'>) {
    return this.notifications.record(event);
  }

  @OnEvent('instance.alert_fired', { async: true, promisify: true })
  alertFired(event: DomainEventNamed<'instance.alert_fired'>) {
    return this.notifications.record(event);
  }

  @OnEvent('instance.alert_resolved', { async: true, promisify: true })
  alertResolved(event: DomainEventNamed<'instance.alert_resolved'>) {
    return this.notifications.record(event);
  }

  @OnEvent('instance.rescue_started', { async: true, promisify: true })
  rescueStarted(event: DomainEventNamed<'instance.rescue_started'>) {
    return this.notifications.record(event);
  }

  @OnEvent('instance.rescue_ended', { async: true, promisify: true })
  rescueEnded(event: DomainEventNamed<'instance.rescue_ended'>) {
    return this.notifications.record(event);
  }

  @OnEvent('instance.password_reset', { async: true, promisify: true })
  passwordReset(event: DomainEventNamed<'instance.password_reset'>) {
    return this.notifications.record(event);
  }

  @OnEvent('instance.move_started', { async: true, promisify: true })
  moveStarted(event: DomainEventNamed<'instance.move_started'>) {
    return this.notifications.record(event);
  }

  @OnEvent('instance.move_finished', { async: true, promisify: true })
  moveFinished(event: DomainEventNamed<'instance.move_finished'>) {
    return this.notifications.record(event);
  }

  @OnEvent('instance.evacuated', { async: true, promisify: true })
  instanceEvacuated(event: DomainEventNamed<'instance.evacuated'>) {
    return this.notifications.record(event);
  }

  @OnEvent('service.status_changed', { async: true, promisify: true })
  statusChanged(event: DomainEventNamed<'service.status_changed'>) {
    return this.notifications.record(event);
  }

  @OnEvent('object_storage.credentials_rotated', { async: true, promisify: true })
  storageKeyRotated(event: DomainEventNamed<'object_storage.credentials_rotated'>) {
    return this.notifications.record(event);
  }

  @OnEvent('object_storage.quota_warning', { async: true, promisify: true })
  storageQuota(event: DomainEventNamed<'object_storage.quota_warning'>) {
    return this.notifications.record(event);
  }

  @OnEvent('api_key.created', { async: true, promisify: true })
  apiKeyCreated(event: DomainEventNamed<'api_key.created'>) {
    return this.notifications.record(event);
  }

  @OnEvent('api_key.expiring', { async: true, promisify: true })
  apiKeyExpiring(event: DomainEventNamed<'api_key.expiring'>) {
    return this.notifications.record(event);
  }

  @OnEvent('webhook.disabled', { async: true, promisify: true })
  webhookDisabled(event: DomainEventNamed<'webhook.disabled'>) {
    return this.notifications.record(event);
  }
}
