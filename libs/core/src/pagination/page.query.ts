import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsInt, Max, Min } from 'class-validator';

export const MAX_PAGE_SIZE = 100;
export const DEFAULT_PAGE_SIZE = 10;

/** Only plain decimal integers become numbers; anything else stays as sent and fails validation. */
export const toStrictInt = ({ value }: { value: unknown }): unknown =>
  typeof value === 'string' && /^\d{1,16}$/.test(value) ? Number(value) : value;

/**
 * One message for every rule of a whole-number field: with `stopAtFirstError` class-validator
 * reports the last decorator first, so `pageSize=abc` was answered with the @Max rule.
 */
export const wholeNumberMessage = (field: string, min: number, max: number) => ({
  message: `${field} must be a whole number from ${min} to ${max}`,
});

const PAGE_RULE = wholeNumberMessage('page', 1, Number.MAX_SAFE_INTEGER);
const PAGE_SIZE_RULE = wholeNumberMessage('pageSize', 1, MAX_PAGE_SIZE);

export class PageQuery {
  @ApiPropertyOptional({ type: 'integer', minimum: 1, default: 1, description: 'Page number, from 1.' })
  @Transform(toStrictInt)
  @IsInt(PAGE_RULE)
  @Min(1, PAGE_RULE)
  @Max(Number.MAX_SAFE_INTEGER, PAGE_RULE)
  page: number = 1;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE, description: 'Items per page.' })
  @Transform(toStrictInt)
  @IsInt(PAGE_SIZE_RULE)
  @Min(1, PAGE_SIZE_RULE)
  @Max(MAX_PAGE_SIZE, PAGE_SIZE_RULE)
  pageSize: number = DEFAULT_PAGE_SIZE;
}

/** OFFSET as a decimal string: page * pageSize can pass 2^53 for absurd pages. */
export function pageOffset(query: PageQuery): string {
  return ((BigInt(query.page) - 1n) * BigInt(query.pageSize)).toString();
}
