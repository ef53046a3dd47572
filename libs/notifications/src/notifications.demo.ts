import { Injectable } from '@nestjs/common';
import { DemoContext, DemoSeeder } from '@app/core';

@Injectable()
export class NotificationsDemoSeeder extends DemoSeeder {
  readonly order = 90;

  async seed({ accountId, manager }: DemoContext): Promise<void> {
    const rows: [string, string, string, string, string | null, boolean, string][] = [
      ['service_status_changed', 'warning', 'Invoice overdue: a service may be suspended', 'Pay the open invoice to keep your services running.', null, false, '2 hours'],
      ['ticket_replied', 'info', 'Support replied to your ticket', 'There is a new answer on your ticket.', null, false, '1 hour'],
      ['api_key_created', 'info', 'API key "demo key" created', 'A new API key was created for this account.', null, true, '1 day'],
      ['instance_action_succeeded', 'info', 'web-1 started', 'The start action on web-1 finished successfully.', null, true, '2 days'],
    ];
    for (const [type, severity, title, body, link, read, age] of rows) {
      await manager.query(
        `INSERT INTO notifications (account_id, type, severity, title, body, link, read_at, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, CASE WHEN $7 THEN now() END, now() - $8::interval)`,
        [accountId, type, severity, title, body, link, read, age],
      );
    }
  }
}
