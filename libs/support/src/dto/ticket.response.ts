import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { isoTimestamp } from '@app/core';
import type { Attachment } from '../attachments/attachment.entity';
import type { PresignedUpload } from '../blob-storage/blob-storage';
import { DEPARTMENTS, PRIORITIES, TICKET_STATUSES } from '../support.types';
import type { TicketMessage } from '../tickets/ticket-message.entity';
import type { Ticket } from '../tickets/ticket.entity';

export class AttachmentResponse {
  @ApiProperty({ format: 'uuid', description: 'Attachment id.' })
  id: string;
  @ApiProperty({ example: 'screenshot.png', description: 'File name.' })
  filename: string;
  @ApiProperty({ example: 'image/png', description: 'Content type.' })
  contentType: string;
  @ApiProperty({ type: 'integer', example: 48213, description: 'Size in bytes.' })
  size: number;
  @ApiProperty({ format: 'uri', description: 'Short-lived URL to download the file.' })
  downloadUrl: string;
  @ApiProperty({ format: 'date-time', description: 'When downloadUrl stops working.' })
  downloadUrlExpiresAt: string;

  static from(row: Attachment, downloadUrl: string, expiresAt: Date): AttachmentResponse {
    return {
      id: row.id,
      filename: row.filename,
      contentType: row.contentType,
      size: row.size ?? row.declaredSize,
      downloadUrl,
      downloadUrlExpiresAt: isoTimestamp(expiresAt),
    };
  }
}

export class MessageAuthor {
  @ApiProperty({ enum: ['customer', 'staff'], description: 'Who wrote it.' })
  type: 'customer' | 'staff';
  @ApiProperty({ example: 'Ada Lovelace', description: 'Display name.' })
  name: string;
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
      author: { type: m.authorType, name: m.authorName },
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

export class UploadHeaders {
  @ApiProperty({ example: 'image/png', description: 'Send exactly this Content-Type.' })
  'Content-Type': string;
  @ApiPropertyOptional({ example: '48213', description: 'Send exactly this Content-Length (S3 storage signs it).' })
  'Content-Length'?: string;
  @ApiPropertyOptional({
    enum: ['*'],
    description: 'Send exactly this If-None-Match (S3 storage signs it: a stored file is never replaced).',
  })
  'If-None-Match'?: string;
}

export class PresignedUploadResponse {
  @ApiProperty({ format: 'uuid', description: 'Id to pass in attachmentIds once the file is uploaded.' })
  attachmentId: string;
  @ApiProperty({ format: 'uri', description: 'Where to PUT the file.' })
  url: string;
  @ApiProperty({ enum: ['PUT'], description: 'HTTP method for the upload.' })
  method: 'PUT';
  @ApiProperty({ type: UploadHeaders, description: 'Headers to send with the upload.' })
  headers: Record<string, string>;
  @ApiProperty({ format: 'date-time', description: 'When the URL stops working (15 minutes).' })
  expiresAt: string;
  @ApiProperty({ type: 'integer', example: 48213, description: 'The most bytes the upload may have.' })
  maxSize: number;

  static fromUpload(attachmentId: string, upload: PresignedUpload, expiresAt: Date, maxSize: number): PresignedUploadResponse {
    return { attachmentId, ...upload, expiresAt: isoTimestamp(expiresAt), maxSize };
  }
}

export class PresignResponse {
  @ApiProperty({ type: [PresignedUploadResponse], description: 'One upload per requested file, in order.' })
  uploads: PresignedUploadResponse[];

  static fromUploads(uploads: PresignedUploadResponse[]): PresignResponse {
    return { uploads };
  }
}
