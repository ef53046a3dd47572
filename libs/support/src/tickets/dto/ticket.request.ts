import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayUnique, IsArray, IsIn, IsOptional, IsString, IsUUID, Length } from 'class-validator';
import { PageQuery, Trim } from '@app/core';
import { DEPARTMENTS, MAX_FILES_PER_PRESIGN, PRIORITIES, TICKET_STATUSES } from '../../support.types';
import type { Department, Priority, TicketStatus } from '../../support.types';

/** A message's uploaded attachments (ids from presign), optional: the rule and its document in one place. */
function AttachmentIds(description: string): PropertyDecorator {
  // Applied bottom up, as stacked decorators are: with stopAtFirstError the order picks the message.
  return applyDecorators(
    IsUUID('all', { each: true }),
    ArrayUnique(),
    ArrayMaxSize(MAX_FILES_PER_PRESIGN),
    IsArray(),
    IsOptional(),
    ApiPropertyOptional({ uniqueItems: true, maxItems: MAX_FILES_PER_PRESIGN, description, type: [String], format: 'uuid' }),
  );
}

export class CreateTicketRequest {
  @ApiProperty({ minLength: 1, maxLength: 200, example: 'Server unreachable since 10:00', description: 'Short summary.' })
  @Trim()
  @IsString()
  @Length(1, 200)
  subject: string;

  @ApiProperty({
    minLength: 1,
    maxLength: 64000,
    example: 'Since 10:00 UTC web-1 does not answer on port 443.',
    description: 'The first message.',
  })
  @IsString()
  @Length(1, 64000)
  message: string;

  @ApiPropertyOptional({ enum: PRIORITIES, default: 'medium', description: 'How urgent it is.' })
  @IsOptional()
  @IsIn(PRIORITIES)
  priority?: Priority;

  @ApiPropertyOptional({ enum: DEPARTMENTS, default: 'general', description: 'Who should answer.' })
  @IsOptional()
  @IsIn(DEPARTMENTS)
  department?: Department;

  @ApiPropertyOptional({ format: 'uuid', description: 'A service of the account the ticket is about.' })
  @IsOptional()
  @IsUUID('all')
  serviceId?: string;

  @AttachmentIds('Uploaded attachments (from presign) to add to the message.')
  attachmentIds?: string[];
}

export class ReplyRequest {
  @ApiProperty({ minLength: 1, maxLength: 64000, example: 'It is back, thank you.', description: 'The reply.' })
  @IsString()
  @Length(1, 64000)
  message: string;

  @AttachmentIds('Uploaded attachments to add.')
  attachmentIds?: string[];
}

export class ListTicketsQuery extends PageQuery {
  @ApiPropertyOptional({ enum: TICKET_STATUSES, description: 'Only tickets in this status.' })
  @IsOptional()
  @IsIn(TICKET_STATUSES)
  status?: TicketStatus;
}
