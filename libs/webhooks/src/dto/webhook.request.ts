import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, ArrayUnique, IsBoolean, IsIn, IsOptional, IsString, MaxLength, ValidateIf } from 'class-validator';
import { activityActionList, Trim } from '@app/core';
import { URL_MAX_LENGTH } from '../delivery/webhook-url';

/** Event types an endpoint may subscribe to: every activity action, or `*` for all (including those added later). */
export const WEBHOOK_EVENT_NAMES = activityActionList(['*']);
const EVENTS_DESCRIPTION =
  'Event types to deliver: activity actions such as `ssh_key.create` or `ticket.reply`, or `*` for every type (also those added later).';

export class CreateWebhookRequest {
  @ApiProperty({ maxLength: URL_MAX_LENGTH, example: 'https://hooks.example.com/hosting', description: 'The https URL to POST events to.' })
  @Trim()
  @IsString()
  @MaxLength(URL_MAX_LENGTH)
  url: string;

  @ApiProperty({
    type: [String],
    enum: WEBHOOK_EVENT_NAMES,
    minItems: 1,
    maxItems: 100,
    example: ['ssh_key.create'],
    description: EVENTS_DESCRIPTION,
  })
  @ArrayMinSize(1)
  @ArrayMaxSize(100)
  @ArrayUnique()
  @IsIn(WEBHOOK_EVENT_NAMES, { each: true, message: 'each value in events must be a known event type or *' })
  events: string[];

  @ApiPropertyOptional({ maxLength: 200, example: 'CI notifier', description: 'A note to recognise the endpoint by.' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  description?: string;
}

export class UpdateWebhookRequest {
  @ApiPropertyOptional({ maxLength: URL_MAX_LENGTH, example: 'https://hooks.example.com/hosting', description: 'A new URL.' })
  @ValidateIf((_o, value) => value !== undefined) // null is not "unchanged": it is refused
  @Trim()
  @IsString()
  @MaxLength(URL_MAX_LENGTH)
  url?: string;

  @ApiPropertyOptional({ type: [String], enum: WEBHOOK_EVENT_NAMES, minItems: 1, maxItems: 100, description: EVENTS_DESCRIPTION })
  @ValidateIf((_o, value) => value !== undefined)
  @ArrayMinSize(1)
  @ArrayMaxSize(100)
  @ArrayUnique()
  @IsIn(WEBHOOK_EVENT_NAMES, { each: true, message: 'each value in events must be a known event type or *' })
  events?: string[];

  @ApiPropertyOptional({ description: 'false stops deliveries; true resumes them (and clears the failure streak).' })
  @ValidateIf((_o, value) => value !== undefined)
  @IsBoolean()
  enabled?: boolean;

  @ApiPropertyOptional({ maxLength: 200, description: 'A new note; an empty string clears it.' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  description?: string;
}
