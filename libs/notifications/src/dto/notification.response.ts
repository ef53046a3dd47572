import { ApiProperty } from '@nestjs/swagger';
import { ApiNullableRef, isoTimestamp } from '@app/core';
import { NOTIFICATION_TYPES, NotificationRow, SEVERITIES } from '../notification.types';

export class NotificationEntityRef {
  @ApiProperty({ example: 'ticket', enum: ['ticket', 'service', 'api_key', 'webhook'], description: 'Kind of resource.' })
  type: string;
  @ApiProperty({ format: 'uuid', description: 'Id of the resource.' })
  id: string;
}

export class NotificationResponse {
  @ApiProperty({ format: 'uuid', description: 'Notification id.' })
  id: string;
  @ApiProperty({ enum: NOTIFICATION_TYPES, description: 'What happened (clients must tolerate new values).' })
  type: string;
  @ApiProperty({ enum: SEVERITIES, description: 'How urgent it is.' })
  severity: string;
  @ApiProperty({ example: 'Support replied to T-000123', description: 'One-line summary.' })
  title: string;
  @ApiProperty({ example: 'There is a new answer on your ticket "Disk full".', description: 'Longer text.' })
  body: string;
  @ApiProperty({ type: 'string', nullable: true, example: '/api/support/tickets/3f1c...', description: 'Where to look, if anywhere.' })
  link: string | null;
  @ApiNullableRef(NotificationEntityRef, { description: 'The resource it is about; null if none.' })
  entity: NotificationEntityRef | null;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true, description: 'When it was read; null while unread.' })
  readAt: string | null;
  @ApiProperty({ format: 'date-time', description: 'When it happened.' })
  createdAt: string;

  static fromRow(row: NotificationRow): NotificationResponse {
    return {
      id: row.id,
      type: row.type,
      severity: row.severity,
      title: row.title,
      body: row.body,
      link: row.link,
      entity: row.entity_type && row.entity_id ? { type: row.entity_type, id: row.entity_id } : null,
      readAt: isoTimestamp(row.read_at),
      createdAt: isoTimestamp(row.created_at),
    };
  }
}

export class UnreadCountResponse {
  @ApiProperty({ type: 'integer', example: 3, description: 'Number of unread notifications.' })
  count: number;

  static fromCount(count: number): UnreadCountResponse {
    return { count };
  }
}

export class ReadAllResponse {
  @ApiProperty({ type: 'integer', example: 3, description: 'Number of notifications marked read by this call.' })
  updated: number;

  static fromUpdated(updated: number): ReadAllResponse {
    return { updated };
  }
}
