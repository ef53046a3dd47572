import { ApiProperty } from '@nestjs/swagger';
import { isoTimestamp } from '@app/core';
import { METRIC_TYPES, MetricsRange, MetricType } from '../metrics-range';
import type { MetricsSeries } from '../source/metrics-source';

const POINTS = {
  type: 'array',
  description: 'Points `[time in unix seconds, value]`, oldest first.',
  items: { type: 'array', items: { type: 'number' }, minItems: 2, maxItems: 2 },
};

export class MetricsResponse {
  @ApiProperty({
    format: 'date-time',
    example: '2026-11-26T09:00:00.000Z',
    description: 'Time of the first point asked for: `start` rounded down to a multiple of `step`.',
  })
  start: string;

  @ApiProperty({
    format: 'date-time',
    example: '2026-11-26T10:00:00.000Z',
    description: 'Time of the last point asked for: `end` rounded down to a multiple of `step`.',
  })
  end: string;

  @ApiProperty({ type: 'integer', example: 10, description: 'Seconds between two points.' })
  step: number;

  @ApiProperty({
    type: 'object',
    additionalProperties: POINTS,
    description:
      "Series by name. Units: `cpu` in percent of all the VPS's vCPUs (0-100); `disk.<n>.iops.read|write` in operations/s; `disk.<n>.bandwidth.read|write` in bytes/s; `network.<n>.bandwidth.in|out` in bytes/s (`<n>` numbers the disks and network interfaces from 0). A series has no point where the VPS was not running.",
    example: {
      cpu: [
        [1795683600, 12.5],
        [1795683610, 14.25],
      ],
      'disk.0.iops.read': [
        [1795683600, 3],
        [1795683610, 0.5],
      ],
      'disk.0.bandwidth.write': [
        [1795683600, 40960],
        [1795683610, 8192],
      ],
    },
  })
  series: MetricsSeries;

  @ApiProperty({
    enum: METRIC_TYPES,
    isArray: true,
    example: ['network'],
    description:
      'Types asked for that have no series for this VPS over the range: `network` on a VPS whose network interface the hypervisor cannot count (user-mode networking), or any type while the VPS was off.',
  })
  unavailable: MetricType[];

  static from(range: MetricsRange, types: MetricType[], series: MetricsSeries): MetricsResponse {
    return {
      start: isoTimestamp(new Date(range.start * 1000)),
      end: isoTimestamp(new Date(range.end * 1000)),
      step: range.step,
      series,
      unavailable: types.filter((type) => !Object.keys(series).some((name) => name === type || name.startsWith(`${type}.`))),
    };
  }
}
