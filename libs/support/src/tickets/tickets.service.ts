import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { AccountsService } from '@app/accounts';
import {
  ActivityLog,
  domainEvent,
  paginated,
  Paginated,
  Principal,
  Problem,
  Publish,
  RecordedBy,
  staffActor,
  TransactionRunner,
} from '@app/core';
import { TicketClosedEvent, TicketRepliedEvent } from '../support.events';
import { ServiceOwnership } from '@app/services';
import { AttachmentsService } from '../attachments/attachments.service';
import { CreateTicketRequest, ListTicketsQuery, ReplyRequest } from './dto/ticket.request';
import { TicketMessageResponse, TicketResponse, TicketWithMessagesResponse } from './dto/ticket.response';
import { TicketMessage } from './ticket-message.entity';
import { Ticket } from './ticket.entity';
import { NewMessage, TicketsRepository } from './tickets.repository';

export const STAFF_NAME = 'Support team';

type MessageAuthorRow = Omit<NewMessage, 'ticketId' | 'message'>;

@Injectable()
export class TicketsService {
  constructor(
    private readonly tickets: TicketsRepository,
    private readonly tx: TransactionRunner,
    private readonly attachments: AttachmentsService,
    private readonly services: ServiceOwnership,
    private readonly accounts: AccountsService,
    private readonly activity: ActivityLog,
  ) {}

  async create(caller: Principal, input: CreateTicketRequest): Promise<TicketWithMessagesResponse> {
    const { accountId } = caller;
    if (input.serviceId && !(await this.services.isOwnedBy(accountId, input.serviceId))) {
      throw Problem.invalidInput('serviceId is not a service of this account.', [
        { field: 'serviceId', message: 'is not a service of this account' },
      ]);
    }
    const sizes = await this.attachments.verifyUploaded(accountId, input.attachmentIds ?? []);
    const author = await this.customerName(caller);
    const ticketId = await this.tx.run(async (m) => {
      const ticket = await this.tickets.insert(m, {
        accountId,
        subject: input.subject,
        priority: input.priority ?? 'medium',
        department: input.department ?? 'general',
        serviceId: input.serviceId ?? null,
      });
      const message = await this.tickets.insertMessage(m, { ticketId: ticket.id, ...author, message: input.message });
      await this.attachments.attach(m, accountId, message.id, sizes);
      await this.activity.record(m, {
        accountId,
        caller,
        action: 'ticket.create',
        entity: { type: 'ticket', id: ticket.id },
        details: { subject: ticket.subject, attachments: sizes.size },
      });
      return ticket.id;
    });
    return this.get(accountId, ticketId);
  }

  async list(accountId: string, query: ListTicketsQuery): Promise<Paginated<TicketResponse>> {
    const { rows, total } = await this.tickets.page(accountId, query.status, query);
    return paginated(rows.map(TicketResponse.from), query, total);
  }

  async get(accountId: string, id: string): Promise<TicketWithMessagesResponse> {
    const ticket = await this.findOneForAccount(accountId, id);
    const messages = await this.tickets.messages(id);
    const attachments = await this.attachments.forMessages(messages.map((m) => m.id));
    return TicketWithMessagesResponse.fromTicket(ticket, messages, attachments);
  }

  async reply(caller: Principal, id: string, input: ReplyRequest): Promise<TicketMessageResponse> {
    const { accountId } = caller;
    await this.findOneForAccount(accountId, id);
    const sizes = await this.attachments.verifyUploaded(accountId, input.attachmentIds ?? []);
    const author = await this.customerName(caller);
    const messageId = await this.tx.run(async (m, publish) => {
      const message = await this.addMessage(m, publish, accountId, id, author, input.message);
      await this.attachments.attach(m, accountId, message.id, sizes);
      await this.recordReply(m, accountId, id, message.id, sizes.size, { caller });
      return message.id;
    });
    return this.message(messageId);
  }

  /** A reply from the operator's side (CLI, back office): sets `answered` and tells the customer. */
  async staffReply(ticketId: string, text: string, staffName = STAFF_NAME): Promise<TicketMessageResponse> {
    const ticket = await this.tickets.findById(ticketId);
    if (!ticket) throw Problem.notFound('Ticket');
    const messageId = await this.tx.run(async (m, publish) => {
      const message = await this.addMessage(m, publish, ticket.accountId, ticketId, { authorType: 'staff', authorName: staffName }, text);
      await this.recordReply(m, ticket.accountId, ticketId, message.id, 0, { actor: staffActor(staffName) });
      return message.id;
    });
    return this.message(messageId);
  }

  /** Idempotent: closing a closed ticket changes nothing and emits nothing. */
  async close(caller: Principal, id: string): Promise<TicketResponse> {
    const { accountId } = caller;
    await this.tx.run(async (m, publish) => {
      const closed = await this.tickets.close(m, accountId, id);
      if (!closed) return;
      publish(domainEvent<TicketClosedEvent>('ticket.closed', accountId, { ticketId: id, ...closed }));
      await this.activity.record(m, { accountId, caller, action: 'ticket.close', entity: { type: 'ticket', id } });
    });
    return TicketResponse.from(await this.findOneForAccount(accountId, id));
  }

  private async addMessage(
    m: EntityManager,
    publish: Publish,
    accountId: string,
    ticketId: string,
    author: MessageAuthorRow,
    text: string,
  ): Promise<TicketMessage> {
    const { authorType } = author;
    const replied = await this.tickets.recordReply(m, ticketId, authorType === 'staff' ? 'answered' : 'customer_reply');
    if (!replied) throw Problem.conflict('ticket_closed', 'The ticket is closed; open a new ticket instead.');
    const message = await this.tickets.insertMessage(m, { ticketId, ...author, message: text });
    publish(
      domainEvent<TicketRepliedEvent>('ticket.replied', accountId, {
        ticketId,
        reference: replied.reference,
        subject: replied.subject,
        messageId: message.id,
        author: authorType,
      }),
    );
    return message;
  }

  private recordReply(m: EntityManager, accountId: string, ticketId: string, messageId: string, attachments: number, by: RecordedBy) {
    return this.activity.record(m, {
      accountId,
      action: 'ticket.reply',
      entity: { type: 'ticket', id: ticketId },
      ...by,
      details: { messageId, attachments },
    });
  }

  private async message(id: string): Promise<TicketMessageResponse> {
    const message = await this.tickets.message(id);
    const attachments = await this.attachments.forMessages([id]);
    return TicketMessageResponse.from(message, attachments.get(id) ?? []);
  }

  private async findOneForAccount(accountId: string, id: string): Promise<Ticket> {
    const ticket = await this.tickets.findOneForAccount(accountId, id);
    if (!ticket) throw Problem.notFound('Ticket');
    return ticket;
  }

  /** The member writing: their login's name, their address, the key they used. */
  private async customerName(caller: Principal): Promise<MessageAuthorRow> {
    return {
      authorType: 'customer',
      authorName: (await this.accounts.displayName(caller.loginId)) ?? 'Customer',
      authorMemberId: caller.memberId,
      authorEmail: caller.email,
      authorKeyId: caller.kind === 'api_key' ? caller.credentialId : null,
    };
  }
}
