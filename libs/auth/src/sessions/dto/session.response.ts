import { ApiProperty } from '@nestjs/swagger';
import { isoTimestamp } from '@app/core';
import type { SessionRow } from '../sessions.repository';

export class SessionResponse {
  @ApiProperty({ format: 'uuid', description: 'Session id.' })
  id: string;
  @ApiProperty({ format: 'date-time', description: 'When the session was started (login).' })
  createdAt: string;
  @ApiProperty({
    format: 'date-time',
    nullable: true,
    type: 'string',
    description: 'Last request, to the minute; null if none since the login.',
  })
  lastUsedAt: string | null;
  @ApiProperty({ nullable: true, type: 'string', example: '203.0.113.7', description: 'IP address of the login.' })
  ip: string | null;
  @ApiProperty({ nullable: true, type: 'string', example: 'Mozilla/5.0', description: 'User-Agent of the login.' })
  userAgent: string | null;
  @ApiProperty({ description: 'True for the session of the access token making this request.' })
  current: boolean;

  static fromRow(row: SessionRow, currentSessionId: string): SessionResponse {
    return {
      id: row.id,
      createdAt: isoTimestamp(row.created_at),
      lastUsedAt: isoTimestamp(row.last_used_at),
      ip: row.ip,
      userAgent: row.user_agent,
      current: row.id === currentSessionId,
    };
  }
}
