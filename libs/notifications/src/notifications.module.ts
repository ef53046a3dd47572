import { Module } from '@nestjs/common';
import { AuthModule } from '@app/auth';
import { NotificationEventsListener } from './notification-events.listener';
import { NotificationsController } from './notifications.controller';
import { NotificationsDemoSeeder } from './notifications.demo';
import { NotificationsRepository } from './notifications.repository';
import { NotificationsService } from './notifications.service';
import { CredentialRevocationsListener } from './stream/credential-revocations.listener';
import { NotificationHub } from './stream/notification-hub';
import { StreamCredentials } from './stream/stream-credentials';

@Module({
  imports: [AuthModule],
  controllers: [NotificationsController],
  providers: [
    NotificationsService,
    NotificationsRepository,
    NotificationHub,
    NotificationEventsListener,
    NotificationsDemoSeeder,
    StreamCredentials,
    CredentialRevocationsListener,
  ],
  exports: [NotificationsService, NotificationHub],
})
export class NotificationsModule {}
