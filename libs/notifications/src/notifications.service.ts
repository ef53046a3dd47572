import { Injectable, Logger } from '@nestjs/common';
import { DomainEvent, Paginated, paginated, Problem } from '@app/core';
import { ListNotificationsQuery } from './dto/list-notifications.query';
import { NotificationResponse, ReadAllResponse, UnreadCountResponse } from './dto/notification.response';
import { notificationFor } from './notification-templates';
import { NotificationsRepository } from './notifications.repository';
import { NotificationHub } from './stream/notification-hub';

@Injectable()
export class NotificationsService {
  private readonly logger = new Logger('Notifications');

  constructor(
    private readonly repository: NotificationsRepository,
    private readonly hub: NotificationHub,
  ) {}

  /** Turns a domain event (already committed) into a notification and tells open streams. */
  async record(event: DomainEvent): Promise<NotificationResponse | null> {
    const template = notificationFor(event);
    if (!template) return null;
    try {
      const created = await this.repository.insert(template, this.hub.channel);
      if (!created) return null;
      this.hub.changedHere(event.accountId, created.id);
      return NotificationResponse.fromRow(created);
    } catch (err) {
      this.logger.error(`Could not record ${event.name} for ${event.accountId}: ${(err as Error).message}`);
      return null;
    }
  }

  async list(accountId: string, query: ListNotificationsQuery): Promise<Paginated<NotificationResponse>> {
    const unread = query.unread === undefined ? undefined : query.unread === 'true';
    const { rows, total } = await this.repository.page(accountId, query, unread);
    return paginated(rows.map(NotificationResponse.fromRow), query, total);
  }

  async get(accountId: string, id: string): Promise<NotificationResponse> {
    const found = await this.repository.findOne(accountId, id);
    if (!found) throw Problem.notFound('Notification');
    return NotificationResponse.fromRow(found);
  }

  async unreadCount(accountId: string): Promise<UnreadCountResponse> {
    return UnreadCountResponse.fromCount(await this.repository.unreadCount(accountId));
  }

  async markRead(accountId: string, id: string): Promise<NotificationResponse> {
    const result = await this.repository.markRead(accountId, id, this.hub.channel);
    if (!result) throw Problem.notFound('Notification');
    // Other open streams of the account show the new count; a repeated read changes nothing.
    if (result.changed) this.hub.changedHere(accountId, null);
    return NotificationResponse.fromRow(result.notification);
  }

  async markAllRead(accountId: string): Promise<ReadAllResponse> {
    const updated = await this.repository.markAllRead(accountId, this.hub.channel);
    if (updated) this.hub.changedHere(accountId, null);
    return ReadAllResponse.fromUpdated(updated);
  }
}
