import { Injectable } from '@nestjs/common';
import { DemoContext, DemoSeeder } from '@app/core';
import { NotificationsRepository } from './notifications.repository';

/** [type, severity, title, body, read, age]; names match the services demo (other areas' ids are theirs). */
const DEMO_NOTIFICATIONS: [string, string, string, string, boolean, string][] = [
  [
    'service_status_changed',
    'critical',
    'ci-runner is now suspended',
    'The status of ci-runner changed from active to suspended.',
    false,
    '2 hours',
  ],
  ['ticket_replied', 'info', 'Support replied to your ticket', 'There is a new answer on your ticket.', false, '1 hour'],
  ['instance_action_succeeded', 'info', 'staging stopped', 'The stop action on staging finished successfully.', true, '1 day'],
  ['instance_action_succeeded', 'info', 'web-01 rebooted', 'The reboot action on web-01 finished successfully.', true, '2 days'],
];

@Injectable()
export class NotificationsDemoSeeder extends DemoSeeder {
  readonly order = 90;

  constructor(private readonly notifications: NotificationsRepository) {
    super();
  }

  async seed({ accountId, manager }: DemoContext): Promise<void> {
    for (const [type, severity, title, body, read, age] of DEMO_NOTIFICATIONS) {
      await this.notifications.insertAged(manager, accountId, { type, severity, title, body, read, age });
    }
  }
}
