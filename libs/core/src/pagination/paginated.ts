import { Type } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { PageQuery } from './page.query';

export interface Paginated<T> {
  data: T[];
  page: number;
  pageSize: number;
  total: number;
  totalPages: number;
}

export function paginated<T>(data: T[], query: PageQuery, total: number): Paginated<T> {
  return { data, page: query.page, pageSize: query.pageSize, total, totalPages: Math.ceil(total / query.pageSize) };
}

/** A named OpenAPI schema for one page of `item` (for example PaginatedServices). */
export function PaginatedResponse<T>(item: Type<T>, name: string): Type<Paginated<T>> {
  class PageOf {
    @ApiProperty({ type: () => [item], description: 'One page of items.' })
    data: T[];
    @ApiProperty({ type: 'integer', example: 1, description: 'Page number.' })
    page: number;
    @ApiProperty({ type: 'integer', example: 10, description: 'Page size.' })
    pageSize: number;
    @ApiProperty({ type: 'integer', example: 42, description: 'Number of items on all pages.' })
    total: number;
    @ApiProperty({ type: 'integer', example: 5, description: 'Number of pages.' })
    totalPages: number;
  }
  Object.defineProperty(PageOf, 'name', { value: name });
  return PageOf;
}
