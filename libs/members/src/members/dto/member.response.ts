import { ApiProperty } from '@nestjs/swagger';
import type { MemberRow } from '@app/accounts';
import { isoTimestamp, Role, ROLES } from '@app/core';

export class MemberResponse {
  @ApiProperty({ format: 'uuid', description: 'Member id (GET /api/events?actor= takes it).' })
  id: string;
  @ApiProperty({ example: 'grace@example.com', description: "The member's login address." })
  email: string;
  @ApiProperty({ example: 'Grace Hopper', description: "The member's display name." })
  name: string;
  @ApiProperty({ enum: ROLES, enumName: 'Role', description: 'What the member may do on this account (docs/roles.md).' })
  role: Role;
  @ApiProperty({ format: 'date-time', description: 'When the member joined the account.' })
  joinedAt: string;

  static fromRow(row: MemberRow): MemberResponse {
    return { id: row.id, email: row.email, name: row.name, role: row.role, joinedAt: isoTimestamp(row.joined_at) };
  }
}
