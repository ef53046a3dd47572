import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsISO8601, IsOptional, Matches } from 'class-validator';

const TYPE_LIST = /^(cpu|disk|network)(,(cpu|disk|network)){0,2}$/;

export class MetricsQuery {
  @ApiPropertyOptional({
    example: 'cpu,disk,network',
    maxLength: 20,
    description: 'Comma-separated kinds of series: `cpu`, `disk`, `network` (all three when omitted).',
  })
  @IsOptional()
  @Matches(TYPE_LIST, { message: 'type must be a comma-separated list of cpu, disk, network' })
  type?: string;

  @ApiPropertyOptional({ format: 'date-time', example: '2026-11-26T09:00:00Z', description: 'First point; default an hour before `end`.' })
  @IsOptional()
  @IsISO8601({ strict: true, strictSeparator: true }, { message: 'start must be an ISO 8601 date-time' })
  start?: string;

  @ApiPropertyOptional({
    format: 'date-time',
    example: '2026-11-26T10:00:00Z',
    description: 'Last point; default now. The range spans at most 30 days.',
  })
  @IsOptional()
  @IsISO8601({ strict: true, strictSeparator: true }, { message: 'end must be an ISO 8601 date-time' })
  end?: string;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    maximum: 86400,
    example: 60,
    description:
      'Seconds between two points, at least the range divided by 1000 (a day: 87, 30 days: 2592); default the smallest of 10, 15, 20, 30, 60, ... giving at most 1000 intervals. Points fall on multiples of the step.',
  })
  @IsOptional()
  @Matches(/^[1-9]\d{0,4}$/, { message: 'step must be a whole number of seconds from 1 to 86400' })
  step?: string;
}
