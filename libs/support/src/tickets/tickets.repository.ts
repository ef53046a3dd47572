import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { PageQuery, pageOffset } from '@app/core';
import type { AuthorType, Department, Priority, TicketStatus } from '../support.types';
import { TicketMessage } from './ticket-message.entity';
import { Ticket } from './ticket.entity';

export interface NewTicket {
  accountId: string;
  subject: string;
  priority: Priority;
  department: Department;
  serviceId: string | null;
}

export interface NewMessage {
  ticketId: string;
  authorType: AuthorType;
  authorName: string;
  message: string;
}

export type TicketProgress = Partial<Pick<Ticket, 'status' | 'replyCount' | 'lastReplyAt'>>;

/** What an event about a ticket quotes. */
export interface TicketHeadline {
  reference: string;
  subject: string;
}

/** Tickets and their messages. Entities for reads and inserts; the status changes are single UPDATEs, so concurrent ones cannot interleave. */
@Injectable()
export class TicketsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** An open ticket with no replies, unless `progress` says otherwise (demo data starts answered). */
  async insert(manager: EntityManager, ticket: NewTicket, progress: TicketProgress = {}): Promise<Ticket> {
    return manager.save(
      manager.create(Ticket, { ...ticket, status: 'open' as TicketStatus, replyCount: 0, lastReplyAt: null, closedAt: null, ...progress }),
    );
  }

  insertMessage(manager: EntityManager, message: NewMessage): Promise<TicketMessage> {
    return manager.save(manager.create(TicketMessage, message));
  }

  async page(accountId: string, status: TicketStatus | undefined, page: PageQuery): Promise<{ rows: Ticket[]; total: number }> {
    const repo = this.dataSource.getRepository(Ticket);
    const where = { accountId, ...(status ? { status } : {}) };
    const [rows, total] = await Promise.all([
      repo.find({ where, order: { createdAt: 'DESC', id: 'DESC' }, take: page.pageSize, skip: Number(pageOffset(page)) }),
      repo.count({ where }),
    ]);
    return { rows, total };
  }

  findOneForAccount(accountId: string, id: string): Promise<Ticket | null> {
    return this.dataSource.getRepository(Ticket).findOne({ where: { id, accountId } });
  }

  /** Without an ownership check: for the operator's side only. */
  findById(id: string): Promise<Ticket | null> {
    return this.dataSource.getRepository(Ticket).findOne({ where: { id } });
  }

  messages(ticketId: string): Promise<TicketMessage[]> {
    return this.dataSource.getRepository(TicketMessage).find({ where: { ticketId }, order: { createdAt: 'ASC', id: 'ASC' } });
  }

  message(id: string): Promise<TicketMessage> {
    return this.dataSource.getRepository(TicketMessage).findOneOrFail({ where: { id } });
  }

  /** Closes an open ticket of the account; null when it is missing, another's or already closed. */
  async close(manager: EntityManager, accountId: string, id: string): Promise<TicketHeadline | null> {
    const [rows]: [TicketHeadline[]] = await manager.query(
      `UPDATE tickets SET status = 'closed', closed_at = now(), updated_at = now()
        WHERE id = $1 AND account_id = $2 AND status <> 'closed' RETURNING reference, subject`,
      [id, accountId],
    );
    return rows[0] ?? null;
  }

  /** Counts a reply and sets the status it leads to; null when the ticket is closed. */
  async recordReply(manager: EntityManager, ticketId: string, status: TicketStatus): Promise<TicketHeadline | null> {
    const [rows]: [TicketHeadline[]] = await manager.query(
      `UPDATE tickets SET status = $2, reply_count = reply_count + 1, last_reply_at = now(), updated_at = now()
        WHERE id = $1 AND status <> 'closed' RETURNING reference, subject`,
      [ticketId, status],
    );
    return rows[0] ?? null;
  }
}
