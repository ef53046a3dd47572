import { Global, Module } from '@nestjs/common';
import { AccountsModule } from '@app/accounts';
import { ActivityLog } from '@app/core';
import { ActivityLogService } from './activity-log.service';
import { ActivityRetentionJob } from './activity-retention.job';
import { ActivityRepository } from './activity.repository';
import { EventsController } from './events.controller';
import { EventsService } from './events.service';

/** The account's activity log: every area records through the global ActivityLog port. */
@Global()
@Module({
  imports: [AccountsModule],
  controllers: [EventsController],
  providers: [
    ActivityRepository,
    ActivityLogService,
    { provide: ActivityLog, useExisting: ActivityLogService },
    EventsService,
    ActivityRetentionJob,
  ],
  exports: [ActivityLog],
})
export class EventsModule {}
