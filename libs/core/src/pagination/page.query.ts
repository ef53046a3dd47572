import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsInt, Max, Min } from 'class-validator';

export const MAX_PAGE_SIZE = 100;
export const DEFAULT_PAGE_SIZE = 10;

/** Only plain decimal integers become numbers; anything else stays as sent and fails validation. */
export const toStrictInt = ({ value }: { value: unknown }): unknown =>
  typeof value === 'string' && /^\d{1,16}$/.test(value) ? Number(value) : value;

const INTEGER_MESSAGE = (field: string) => `${field} must be a plain decimal integer`;

export class PageQuery {
  @ApiPropertyOptional({ type: 'integer', minimum: 1, default: 1, description: 'Page number, from 1.' })
  @Transform(toStrictInt)
  @IsInt({ message: INTEGER_MESSAGE('page') })
  @Min(1)
  @Max(Number.MAX_SAFE_INTEGER)
  page: number = 1;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE, description: 'Items per page.' })
  @Transform(toStrictInt)
  @IsInt({ message: INTEGER_MESSAGE('pageSize') })
  @Min(1)
  @Max(MAX_PAGE_SIZE)
  pageSize: number = DEFAULT_PAGE_SIZE;
}

/** OFFSET as a decimal string: page * pageSize can pass 2^53 for absurd pages. */
export function pageOffset(query: PageQuery): string {
  return ((BigInt(query.page) - 1n) * BigInt(query.pageSize)).toString();
}
