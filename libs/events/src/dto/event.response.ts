import { ApiProperty } from '@nestjs/swagger';
import { ACTIVITY_ACTIONS, ActivityEntry, ApiNullableRef, isoTimestamp } from '@app/core';

export class EventEntityRef {
  @ApiProperty({ example: 'service', maxLength: 40, description: 'Kind of resource.' })
  type: string;
  @ApiProperty({ format: 'uuid', description: 'Id of the resource.' })
  id: string;
}

export class EventActor {
  @ApiProperty({ enum: ['account', 'api_key', 'staff', 'system'], description: 'Who did it.' })
  type: string;
  @ApiProperty({
    type: 'string',
    nullable: true,
    maxLength: 100,
    description: 'The login id (an account id), the API key id, the staff member; null for the system.',
  })
  id: string | null;
  @ApiProperty({ type: 'string', nullable: true, maxLength: 200, example: 'Ada Lovelace', description: 'A readable name; null if none.' })
  name: string | null;
  @ApiProperty({
    type: 'string',
    format: 'uuid',
    nullable: true,
    description: 'The member of the account who acted (GET /api/events?actor=); null for staff, the system and sign-ins.',
  })
  memberId: string | null;
  @ApiProperty({
    type: 'string',
    nullable: true,
    maxLength: 254,
    example: 'ada@example.com',
    description: 'The address of the login who acted; null for staff and the system.',
  })
  email: string | null;
  @ApiProperty({ type: 'string', format: 'uuid', nullable: true, description: 'The API key used; null with an access token.' })
  keyId: string | null;
}

export class EventResponse {
  @ApiProperty({ format: 'uuid', description: 'Entry id.' })
  id: string;
  // type given: the areas may declare their actions after this class is decorated (ACTIVITY_ACTIONS fills up).
  @ApiProperty({
    enum: ACTIVITY_ACTIONS,
    example: 'instance.stop',
    description: 'What happened (clients must tolerate new values).',
    type: 'string',
  })
  action: string;
  @ApiNullableRef(EventEntityRef, { description: 'The resource it is about; null if none.' })
  entity: EventEntityRef | null;
  @ApiProperty({ type: EventActor, description: 'Who did it.' })
  actor: EventActor;
  @ApiProperty({
    type: 'string',
    nullable: true,
    maxLength: 64,
    example: '203.0.113.7',
    description: 'Client address; null outside a request.',
  })
  ip: string | null;
  @ApiProperty({ type: 'string', nullable: true, maxLength: 512, description: 'Client User-Agent; null if none.' })
  userAgent: string | null;
  @ApiProperty({ type: 'string', nullable: true, maxLength: 128, description: 'X-Request-Id of the request; null outside a request.' })
  requestId: string | null;
  @ApiProperty({ enum: ['succeeded', 'failed'], description: 'Whether the operation succeeded.' })
  status: string;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    example: { ticketNumber: 'T-000123' },
    description: 'Non-secret facts about the change (the webhook event data).',
  })
  details: Record<string, unknown>;
  @ApiProperty({ format: 'date-time', description: 'When it happened.' })
  createdAt: string;

  static fromEntry({ accountId: _accountId, actor, ...entry }: ActivityEntry): EventResponse {
    const { memberId = null, email = null, keyId = null } = actor;
    return { ...entry, actor: { ...actor, memberId, email, keyId }, createdAt: isoTimestamp(entry.createdAt) };
  }
}
