import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { PageQuery } from '@app/core';
import { PRODUCT_TYPES, ProductType } from '../catalogue.types';

export class ListProductsQuery extends PageQuery {
  @ApiPropertyOptional({ enum: PRODUCT_TYPES, description: 'Only products of this type.' })
  @IsOptional()
  @IsIn(PRODUCT_TYPES, { message: `type must be one of ${PRODUCT_TYPES.join(', ')}` })
  type?: ProductType;
}
