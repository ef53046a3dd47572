import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import {
  domainEvent,
  Paginated,
  paginated,
  pageOffset,
  Problem,
  Publish,
  TicketClosedEvent,
  TicketRepliedEvent,
  TransactionRunner,
} from '@app/core';
import { ServiceOwnership } from '@app/services';
import { AttachmentsService } from '../attachments/attachments.service';
import { CreateTicketRequest, ListTicketsQuery, ReplyRequest } from '../dto/ticket.request';
import { TicketMessageResponse, TicketResponse, TicketWithMessagesResponse } from '../dto/ticket.response';
import type { AuthorType } from '../support.types';
import { TicketMessage } from './ticket-message.entity';
import { Ticket } from './ticket.entity';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function toTicketResponse(t: Ticket): TicketResponse {
  return {
    id: t.id,
    reference: t.reference,
    subject: t.subject,
    status: t.status,
    priority: t.priority,
    department: t.department,
    serviceId: t.serviceId,
    createdAt: t.createdAt.toISOString(),
    updatedAt: t.updatedAt.toISOString(),
    lastReplyAt: iso(t.lastReplyAt),
    closedAt: iso(t.closedAt),
    replyCount: t.replyCount,
  };
}

export const STAFF_NAME = 'Support team';

@Injectable()
export class TicketsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly tx: TransactionRunner,
    private readonly attachments: AttachmentsService,
    private readonly services: ServiceOwnership,
  ) {}

  async create(accountId: string, input: CreateTicketRequest): Promise<TicketWithMessagesResponse> {
    if (input.serviceId && !(await this.services.isOwnedBy(accountId, input.serviceId))) {
      throw Problem.invalidInput('serviceId is not a service of this account.', [{ field: 'serviceId', message: 'is not a service of this account' }]);
    }
    const sizes = await this.attachments.verifyUploaded(accountId, input.attachmentIds ?? []);
    const author = await this.customerName(accountId);
    const ticketId = await this.tx.run(async (m) => {
      const ticket = await m.save(
        m.create(Ticket, {
          accountId,
          subject: input.subject,
          status: 'open',
          priority: input.priority ?? 'medium',
          department: input.department ?? 'general',
          serviceId: input.serviceId ?? null,
          replyCount: 0,
          lastReplyAt: null,
          closedAt: null,
        }),
      );
      const message = await m.save(m.create(TicketMessage, { ticketId: ticket.id, authorType: 'customer', authorName: author, message: input.message }));
      await this.attachments.attach(m, accountId, message.id, sizes);
      return ticket.id;
    });
    return this.get(accountId, ticketId);
  }

  async list(accountId: string, query: ListTicketsQuery): Promise<Paginated<TicketResponse>> {
    const repo = this.dataSource.getRepository(Ticket);
    const where = { accountId, ...(query.status ? { status: query.status } : {}) };
    const [rows, total] = await Promise.all([
      repo.find({ where, order: { createdAt: 'DESC', id: 'DESC' }, take: query.pageSize, skip: Number(pageOffset(query)) }),
      repo.count({ where }),
    ]);
    return paginated(rows.map(toTicketResponse), query, total);
  }

  async get(accountId: string, id: string): Promise<TicketWithMessagesResponse> {
    const ticket = await this.findOneForAccount(accountId, id);
    const messages = await this.dataSource.getRepository(TicketMessage).find({ where: { ticketId: id }, order: { createdAt: 'ASC', id: 'ASC' } });
    const attachments = await this.attachments.forMessages(messages.map((m) => m.id));
    return { ...toTicketResponse(ticket), messages: messages.map((m) => this.toMessage(m, attachments.get(m.id) ?? [])) };
  }

  async reply(accountId: string, id: string, input: ReplyRequest): Promise<TicketMessageResponse> {
    await this.findOneForAccount(accountId, id);
    const sizes = await this.attachments.verifyUploaded(accountId, input.attachmentIds ?? []);
    const author = await this.customerName(accountId);
    const messageId = await this.tx.run(async (m, publish) => {
      const message = await this.addMessage(m, publish, accountId, id, 'customer', author, input.message);
      await this.attachments.attach(m, accountId, message.id, sizes);
      return message.id;
    });
    return this.message(messageId);
  }

  /** A reply from the operator's side (CLI, back office): sets `answered` and tells the customer. */
  async staffReply(ticketId: string, text: string, staffName = STAFF_NAME): Promise<TicketMessageResponse> {
    const ticket = await this.dataSource.getRepository(Ticket).findOne({ where: { id: ticketId } });
    if (!ticket) throw Problem.notFound('Ticket');
    const messageId = await this.tx.run(async (m, publish) => (await this.addMessage(m, publish, ticket.accountId, ticketId, 'staff', staffName, text)).id);
    return this.message(messageId);
  }

  /** Idempotent: closing a closed ticket changes nothing and emits nothing. */
  async close(accountId: string, id: string): Promise<TicketResponse> {
    await this.tx.run(async (m, publish) => {
      const [rows] = await m.query(
        `UPDATE tickets SET status = 'closed', closed_at = now(), updated_at = now()
          WHERE id = $1 AND account_id = $2 AND status <> 'closed' RETURNING reference, subject`,
        [id, accountId],
      );
      if (rows.length) {
        publish(domainEvent<TicketClosedEvent>('ticket.closed', accountId, { ticketId: id, reference: rows[0].reference, subject: rows[0].subject }));
      }
    });
    return toTicketResponse(await this.findOneForAccount(accountId, id));
  }

  private async addMessage(
    m: EntityManager,
    publish: Publish,
    accountId: string,
    ticketId: string,
    authorType: AuthorType,
    authorName: string,
    text: string,
  ): Promise<TicketMessage> {
    const status = authorType === 'staff' ? 'answered' : 'customer_reply';
    const [rows] = await m.query(
      `UPDATE tickets SET status = $2, reply_count = reply_count + 1, last_reply_at = now(), updated_at = now()
        WHERE id = $1 AND status <> 'closed' RETURNING reference, subject`,
      [ticketId, status],
    );
    if (!rows.length) throw Problem.conflict('ticket_closed', 'The ticket is closed; open a new ticket instead.');
    const message = await m.save(m.create(TicketMessage, { ticketId, authorType, authorName, message: text }));
    publish(
      domainEvent<TicketRepliedEvent>('ticket.replied', accountId, {
        ticketId,
        reference: rows[0].reference,
        subject: rows[0].subject,
        messageId: message.id,
        author: authorType,
      }),
    );
    return message;
  }

  private async message(id: string): Promise<TicketMessageResponse> {
    const message = await this.dataSource.getRepository(TicketMessage).findOneOrFail({ where: { id } });
    const attachments = await this.attachments.forMessages([id]);
    return this.toMessage(message, attachments.get(id) ?? []);
  }

  private toMessage(m: TicketMessage, attachments: TicketMessageResponse['attachments']): TicketMessageResponse {
    return { id: m.id, author: { type: m.authorType, name: m.authorName }, message: m.message, attachments, createdAt: m.createdAt.toISOString() };
  }

  private async findOneForAccount(accountId: string, id: string): Promise<Ticket> {
    const ticket = await this.dataSource.getRepository(Ticket).findOne({ where: { id, accountId } });
    if (!ticket) throw Problem.notFound('Ticket');
    return ticket;
  }

  private async customerName(accountId: string): Promise<string> {
    const [row] = await this.dataSource.query('SELECT name FROM accounts WHERE id = $1', [accountId]);
    return (row?.name as string | undefined) ?? 'Customer';
  }
}
