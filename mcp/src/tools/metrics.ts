import { z } from 'zod';
import { instanceMetrics } from '@hosting-account/sdk';
import { defineTool, READS } from '../tool';
import { serviceId } from './services';

const point = z.tuple([z.number().describe('Unix seconds'), z.number()]);

const metrics = z.looseObject({
  start: z.string().describe('ISO 8601, UTC: the first point, rounded down to a multiple of the step'),
  end: z.string().describe('ISO 8601, UTC'),
  step: z.number().int().describe('Seconds between two points'),
  series: z
    .record(z.string(), z.array(point))
    .describe('By name: cpu (percent of the vCPUs), disk.<n>.iops|bandwidth.read|write (op/s, B/s), network.<n>.bandwidth.in|out (B/s)'),
  unavailable: z
    .array(z.string())
    .describe('Types asked for without any series (network under user-mode networking, all while the VPS was off)'),
});

/** A VPS's graphs as numbers: what hostctl vps metrics draws. */
export const METRICS_TOOLS = [
  defineTool({
    name: 'vps_metrics',
    title: 'Read the metrics of a VPS',
    description:
      'CPU, disk and network series of a VPS over a range (default the last hour, at most 30 days; at most 1001 points a series). ' +
      'Each read counts toward the account’s RATE_LIMIT_METRICS_PER_MINUTE (429 rate_limited past it): ask for the types and range needed, and a larger step for a long range.',
    scope: 'read',
    annotations: READS,
    input: {
      serviceId,
      types: z
        .array(z.enum(['cpu', 'disk', 'network']))
        .min(1)
        .optional()
        .describe('The kinds of series (default all three)'),
      start: z.iso.datetime({ offset: true }).optional().describe('First point, ISO 8601 (default an hour before end)'),
      end: z.iso.datetime({ offset: true }).optional().describe('Last point, ISO 8601 (default now)'),
      stepSeconds: z.number().int().min(1).max(86400).optional().describe('Seconds between two points (at least the range / 1000)'),
    },
    output: metrics,
    run: ({ serviceId: id, types, start, end, stepSeconds }, { api }) =>
      instanceMetrics(api, id, {
        ...(types ? { type: [...new Set(types)].join(',') } : {}),
        ...(start ? { start } : {}),
        ...(end ? { end } : {}),
        ...(stepSeconds ? { step: stepSeconds } : {}),
      }) as unknown as Promise<Record<string, unknown>>,
  }),
];
