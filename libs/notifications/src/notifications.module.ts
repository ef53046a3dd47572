import { Module } from '@nestjs/common';
import { NotificationEventsListener } from './notification-events.listener';
import { NotificationsController } from './notifications.controller';
import { NotificationsDemoSeeder } from './notifications.demo';
import { NotificationsRepository } from './notifications.repository';
import { NotificationsService } from './notifications.service';
import { NotificationHub } from './stream/notification-hub';

@Module({
  controllers: [NotificationsController],
  providers: [NotificationsService, NotificationsRepository, NotificationHub, NotificationEventsListener, NotificationsDemoSeeder],
  exports: [NotificationsService, NotificationHub],
})
export class NotificationsModule {}
