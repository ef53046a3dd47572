import { ApiProperty } from '@nestjs/swagger';
import { IsEmail, IsIn, IsString, Length } from 'class-validator';
import { isoTimestamp, Role, ROLES, TrimLower } from '@app/core';
import type { InvitationRow } from '../invitations.repository';

export class CreateInvitationRequest {
  @ApiProperty({
    example: 'grace@example.com',
    maxLength: 254,
    description: 'The address invited; only a login with it, confirmed, can accept.',
  })
  @TrimLower()
  @IsEmail({}, { message: 'email must be an email address' })
  @Length(3, 254, { message: 'email must be at most 254 characters' })
  email: string;

  @ApiProperty({
    enum: ROLES,
    enumName: 'Role',
    description: 'The role it grants: no more than the inviter has (an admin cannot invite an owner).',
  })
  @IsIn(ROLES, { message: `role must be one of ${ROLES.join(', ')}` })
  role: Role;
}

export class AcceptInvitationRequest {
  @ApiProperty({ description: "The token of the invitation mail's link.", example: 'hinv_Z3Vlc3MgYWdhaW4uLi4' })
  @IsString({ message: 'token must be a string' })
  @Length(1, 200, { message: 'token must be 1 to 200 characters' })
  token: string;
}

export class InvitationResponse {
  @ApiProperty({ format: 'uuid', description: 'Invitation id.' })
  id: string;
  @ApiProperty({ example: 'grace@example.com', description: 'The address invited.' })
  email: string;
  @ApiProperty({ enum: ROLES, enumName: 'Role', description: 'The role it grants.' })
  role: Role;
  @ApiProperty({ format: 'uuid', nullable: true, type: 'string', description: 'The member who sent it; null if they have left.' })
  invitedBy: string | null;
  @ApiProperty({ format: 'date-time', description: 'When it was sent.' })
  createdAt: string;
  @ApiProperty({ format: 'date-time', description: 'When its link stops working (INVITATION_TTL_HOURS after it was sent).' })
  expiresAt: string;

  static fromRow(row: InvitationRow): InvitationResponse {
    return {
      id: row.id,
      email: row.email,
      role: row.role,
      invitedBy: row.invited_by,
      createdAt: isoTimestamp(row.created_at),
      expiresAt: isoTimestamp(row.expires_at),
    };
  }
}

export class AcceptedInvitationResponse {
  @ApiProperty({ format: 'uuid', description: 'The account joined (POST /api/auth/switch-account acts on it).' })
  accountId: string;
  @ApiProperty({ example: 'Acme Ltd', description: "The account's name." })
  name: string;
  @ApiProperty({ enum: ROLES, enumName: 'Role', description: 'The role on it.' })
  role: Role;
  @ApiProperty({ format: 'uuid', description: 'The new membership.' })
  memberId: string;
}
