import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { PageQuery } from '@app/core';
import { SERVICE_STATUSES, SERVICE_TYPES, ServiceStatus, ServiceType } from '../service.types';

export class ListServicesQuery extends PageQuery {
  @ApiPropertyOptional({ enum: SERVICE_STATUSES, description: 'Only services with this status.' })
  @IsOptional()
  @IsIn(SERVICE_STATUSES, { message: `status must be one of ${SERVICE_STATUSES.join(', ')}` })
  status?: ServiceStatus;

  @ApiPropertyOptional({ enum: SERVICE_TYPES, description: 'Only services of this type.' })
  @IsOptional()
  @IsIn(SERVICE_TYPES, { message: `type must be one of ${SERVICE_TYPES.join(', ')}` })
  type?: ServiceType;
}
