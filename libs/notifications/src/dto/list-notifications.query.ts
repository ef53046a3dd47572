import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { PageQuery } from '@app/core';

export class ListNotificationsQuery extends PageQuery {
  @ApiPropertyOptional({ enum: ['true', 'false'], description: 'Only unread (true) or only read (false) notifications.' })
  @IsOptional()
  @IsIn(['true', 'false'], { message: 'unread must be true or false' })
  unread?: 'true' | 'false';
}
