import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  IsUUID,
  Length,
  Max,
  Min,
} from 'class-validator';
import { IsListOf, PageQuery, wholeNumberMessage } from '@app/core';
import { DEPARTMENTS, MAX_ATTACHMENT_BYTES, MAX_FILES_PER_PRESIGN, PRIORITIES, TICKET_STATUSES } from '../support.types';
import type { Department, Priority, TicketStatus } from '../support.types';

const ATTACHMENT_SIZE_RULE = { message: `${wholeNumberMessage('size', 1, MAX_ATTACHMENT_BYTES).message} (10 MiB)` };
const trim = ({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value);

export class CreateTicketRequest {
  @ApiProperty({ minLength: 1, maxLength: 200, example: 'Server unreachable since 10:00', description: 'Short summary.' })
  @Transform(trim)
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

  @ApiPropertyOptional({
    type: [String],
    format: 'uuid',
    maxItems: 5,
    description: 'Uploaded attachments (from presign) to add to the message.',
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_FILES_PER_PRESIGN)
  @ArrayUnique()
  @IsUUID('all', { each: true })
  attachmentIds?: string[];
}

export class ReplyRequest {
  @ApiProperty({ minLength: 1, maxLength: 64000, example: 'It is back, thank you.', description: 'The reply.' })
  @IsString()
  @Length(1, 64000)
  message: string;

  @ApiPropertyOptional({ type: [String], format: 'uuid', maxItems: 5, description: 'Uploaded attachments to add.' })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_FILES_PER_PRESIGN)
  @ArrayUnique()
  @IsUUID('all', { each: true })
  attachmentIds?: string[];
}

export class ListTicketsQuery extends PageQuery {
  @ApiPropertyOptional({ enum: TICKET_STATUSES, description: 'Only tickets in this status.' })
  @IsOptional()
  @IsIn(TICKET_STATUSES)
  status?: TicketStatus;
}

export class PresignFile {
  @ApiProperty({
    minLength: 1,
    maxLength: 255,
    example: 'screenshot.png',
    description: 'File name; path parts and control characters are removed.',
  })
  @IsString()
  @Length(1, 1000)
  filename: string;

  @ApiProperty({ example: 'image/png', description: 'png, jpeg, gif, pdf, plain text, log or zip.' })
  @IsString()
  @Length(1, 100)
  contentType: string;

  @ApiProperty({ type: 'integer', minimum: 1, maximum: MAX_ATTACHMENT_BYTES, example: 48213, description: 'Exact size in bytes.' })
  @IsInt(ATTACHMENT_SIZE_RULE)
  @Min(1, ATTACHMENT_SIZE_RULE)
  @Max(MAX_ATTACHMENT_BYTES, ATTACHMENT_SIZE_RULE)
  size: number;
}

export class PresignRequest {
  @ApiProperty({ type: [PresignFile], minItems: 1, maxItems: MAX_FILES_PER_PRESIGN, description: 'The files to upload.' })
  @IsListOf(() => PresignFile)
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_FILES_PER_PRESIGN)
  files: PresignFile[];
}
