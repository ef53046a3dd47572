import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { DemoContext, DemoSeeder } from '@app/core';
import { AttachmentsRepository } from './attachments/attachments.repository';
import { BlobStorage } from './blob-storage/blob-storage';
import { TicketsRepository } from './tickets/tickets.repository';
import { STAFF_NAME } from './tickets/tickets.service';

const LOG = Buffer.from('2026-11-20T09:58:12Z nginx: upstream timed out (110: Connection timed out)\n'.repeat(20));

@Injectable()
export class SupportDemoSeeder extends DemoSeeder {
  readonly order = 80;

  constructor(
    private readonly storage: BlobStorage,
    private readonly tickets: TicketsRepository,
    private readonly attachments: AttachmentsRepository,
  ) {
    super();
  }

  async seed({ accountId, manager }: DemoContext): Promise<void> {
    const ticket = await this.tickets.insert(
      manager,
      { accountId, subject: 'Website slow since this morning', priority: 'high', department: 'technical', serviceId: null },
      { status: 'answered', replyCount: 1, lastReplyAt: new Date() },
    );
    const first = await this.tickets.insertMessage(manager, {
      ticketId: ticket.id,
      authorType: 'customer',
      authorName: 'Demo Customer',
      message: 'Pages take 10 seconds to load since 10:00. Log attached.',
    });
    const key = `${accountId}/${randomUUID()}`;
    await this.storage.put(key, LOG, 'text/plain');
    await this.attachments.insert(
      [
        {
          accountId,
          messageId: first.id,
          filename: 'nginx-error.log',
          contentType: 'text/plain',
          declaredSize: LOG.length,
          size: LOG.length,
          storageKey: key,
          uploadExpiresAt: new Date(),
        },
      ],
      manager,
    );
    await this.tickets.insertMessage(manager, {
      ticketId: ticket.id,
      authorType: 'staff',
      authorName: STAFF_NAME,
      message: 'We found a saturated upstream on your host and moved it. It should be fast again; please confirm.',
    });
  }
}
