import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { PageQuery, pageOfRows, RowsPage, sqlFirst } from '@app/core';
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
  authorMemberId?: string | null;
  authorEmail?: string | null;
  authorKeyId?: string | null;
}

/** A ticket row under its entity's property names (what TicketResponse.from reads). */
const LIST_COLUMNS = `id, account_id AS "accountId", reference, subject, status, priority, department, service_id AS "serviceId",
  reply_count AS "replyCount", created_at AS "createdAt", updated_at AS "updatedAt", last_reply_at AS "lastReplyAt", closed_at AS "closedAt"`;

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

  /**
   * One page of the account's tickets, newest first: a deferred join on the list's indexes, and the
   * total from the trigger-kept counters, not by counting the account's tickets.
   */
  page(accountId: string, status: TicketStatus | undefined, page: PageQuery): Promise<RowsPage<Ticket>> {
    const params = status ? [accountId, status] : [accountId];
    const filter = status ? ' AND status = $2' : '';
    return pageOfRows<Ticket>(
      this.dataSource,
      {
        table: 'tickets',
        columns: LIST_COLUMNS,
        where: `account_id = $1${filter}`,
        params,
        totalSql: `SELECT coalesce(sum(n), 0)::int AS total FROM ticket_counts WHERE account_id = $1${filter}`,
      },
      page,
    );
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
  close(manager: EntityManager, accountId: string, id: string): Promise<TicketHeadline | null> {
    return sqlFirst<TicketHeadline>(
      manager,
      `UPDATE tickets SET status = 'closed', closed_at = now(), updated_at = now()
        WHERE id = $1 AND account_id = $2 AND status <> 'closed' RETURNING reference, subject`,
      [id, accountId],
    );
  }

  /** Counts a reply and sets the status it leads to; null when the ticket is closed. */
  recordReply(manager: EntityManager, ticketId: string, status: TicketStatus): Promise<TicketHeadline | null> {
    return sqlFirst<TicketHeadline>(
      manager,
      `UPDATE tickets SET status = $2, reply_count = reply_count + 1, last_reply_at = now(), updated_at = now()
        WHERE id = $1 AND status <> 'closed' RETURNING reference, subject`,
      [ticketId, status],
    );
  }
}
