import { ApiProperty } from '@nestjs/swagger';
import { isoTimestamp } from '@app/core';
import { AttachmentResponse } from '../../attachments/dto/attachment.response';
import { DEPARTMENTS, PRIORITIES, TICKET_STATUSES } from '../../support.types';
import type { TicketMessage } from '../ticket-message.entity';
import type { Ticket } from '../ticket.entity';

export class MessageAuthor {
  @ApiProperty({ enum: ['customer', 'staff'], description: 'Who wrote it.' })
  type: 'customer' | 'staff';
  @ApiProperty({ example: 'Ada Lovelace', description: 'Display name.' })
  name: string;
  @ApiProperty({
    type: 'string',
    format: 'uuid',
    nullable: true,
    description: 'The member who wrote it; null for staff (and messages from before teams).',
  })
  memberId: string | null;
  @ApiProperty({ type: 'string', nullable: true, example: 'ada@example.com', description: "The writer's login address; null for staff." })
  email: string | null;
  @ApiProperty({ type: 'string', format: 'uuid', nullable: true, description: 'The API key it was sent with; null otherwise.' })
  keyId: string | null;
}

export class TicketMessageResponse {
  @ApiProperty({ format: 'uuid', description: 'Message id.' })
  id: string;
  @ApiProperty({ type: MessageAuthor, description: 'The author.' })
  author: MessageAuthor;
  @ApiProperty({ example: 'Since 10:00 UTC web-1 does not answer on port 443.', description: 'The text.' })
  message: string;
  @ApiProperty({ type: [AttachmentResponse], description: 'Attached files.' })
  attachments: AttachmentResponse[];
  @ApiProperty({ format: 'date-time', description: 'When it was written.' })
  createdAt: string;

  static from(m: TicketMessage, attachments: AttachmentResponse[]): TicketMessageResponse {
    return {
      id: m.id,
      author: { type: m.authorType, name: m.authorName, memberId: m.authorMemberId, email: m.authorEmail, keyId: m.authorKeyId },
      message: m.message,
      attachments,
      createdAt: isoTimestamp(m.createdAt),
    };
  }
}

export class TicketResponse {
  @ApiProperty({ format: 'uuid', description: 'Ticket id.' })
  id: string;
  @ApiProperty({ example: 'T-000123', description: 'Human reference, to quote on the phone.' })
  reference: string;
  @ApiProperty({ example: 'Server unreachable since 10:00', description: 'Summary.' })
  subject: string;
  @ApiProperty({ enum: TICKET_STATUSES, description: 'open, answered (by staff), customer_reply (waiting for staff) or closed.' })
  status: string;
  @ApiProperty({ enum: PRIORITIES, description: 'Priority.' })
  priority: string;
  @ApiProperty({ enum: DEPARTMENTS, description: 'Department.' })
  department: string;
  @ApiProperty({ type: 'string', format: 'uuid', nullable: true, description: 'The service it is about, if any.' })
  serviceId: string | null;
  @ApiProperty({ format: 'date-time', description: 'When it was opened.' })
  createdAt: string;
  @ApiProperty({ format: 'date-time', description: 'Last change.' })
  updatedAt: string;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true, description: 'Last reply, from either side.' })
  lastReplyAt: string | null;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true, description: 'When it was closed.' })
  closedAt: string | null;
  @ApiProperty({ type: 'integer', example: 2, description: 'Messages after the first one.' })
  replyCount: number;

  static from(t: Ticket): TicketResponse {
    return {
      id: t.id,
      reference: t.reference,
      subject: t.subject,
      status: t.status,
      priority: t.priority,
      department: t.department,
      serviceId: t.serviceId,
      createdAt: isoTimestamp(t.createdAt),
      updatedAt: isoTimestamp(t.updatedAt),
      lastReplyAt: isoTimestamp(t.lastReplyAt),
      closedAt: isoTimestamp(t.closedAt),
      replyCount: t.replyCount,
    };
  }
}

export class TicketWithMessagesResponse extends TicketResponse {
  @ApiProperty({ type: [TicketMessageResponse], description: 'The conversation, oldest first.' })
  messages: TicketMessageResponse[];

  /** `attachments`: each message's attachments, by message id. */
  static fromTicket(t: Ticket, messages: TicketMessage[], attachments: Map<string, AttachmentResponse[]>): TicketWithMessagesResponse {
    return { ...TicketResponse.from(t), messages: messages.map((m) => TicketMessageResponse.from(m, attachments.get(m.id) ?? [])) };
  }
}
