import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsISO8601, IsOptional, IsUUID, Matches } from 'class-validator';
import { PageQuery } from '@app/core';

export class ListEventsQuery extends PageQuery {
  @ApiPropertyOptional({ example: 'instance.stop', maxLength: 60, description: 'Only entries of this action (`<entity>.<verb>`).' })
  @IsOptional()
  @Matches(/^[a-z][a-z0-9_]{0,29}\.[a-z][a-z0-9_]{0,29}$/, { message: 'action must look like entity.verb, e.g. instance.stop' })
  action?: string;

  @ApiPropertyOptional({ example: 'service', maxLength: 40, description: 'Only entries about this kind of resource.' })
  @IsOptional()
  @Matches(/^[a-z][a-z0-9_]{0,39}$/, { message: 'entityType must be a lower-case name, e.g. service' })
  entityType?: string;

  @ApiPropertyOptional({ format: 'uuid', description: 'Only entries about this resource.' })
  @IsOptional()
  @IsUUID('all', { message: 'entityId must be a UUID' })
  entityId?: string;

  @ApiPropertyOptional({ format: 'uuid', description: 'Only entries of what this member did (`actor.memberId`).' })
  @IsOptional()
  @IsUUID('all', { message: 'actor must be a member id (a UUID)' })
  actor?: string;

  @ApiPropertyOptional({ format: 'date-time', example: '2026-01-02T03:04:05.678Z', description: 'Only entries at or after this time.' })
  @IsOptional()
  @IsISO8601({ strict: true, strictSeparator: true }, { message: 'since must be an ISO 8601 date-time' })
  since?: string;
}
