import { FieldError, Problem } from '@app/core';

export const METRIC_TYPES = ['cpu', 'disk', 'network'] as const;
export type MetricType = (typeof METRIC_TYPES)[number];

/** Unix seconds: the first and last point asked for, and the seconds between two points. */
export interface MetricsRange {
  start: number;
  end: number;
  step: number;
}

export const MAX_POINTS = 1000;
export const MAX_RANGE_SECONDS = 30 * 86_400;
export const MAX_STEP_SECONDS = 86_400;
const DEFAULT_RANGE_SECONDS = 3600;
const FUTURE_SLACK_SECONDS = 86_400;
const NICE_STEPS = [10, 15, 20, 30, 60, 120, 300, 600, 900, 1200, 1800, 3600, 7200, 10_800, 21_600, 43_200, 86_400];
const WITH_ZONE = /(Z|[+-]\d{2}(:?\d{2})?)$/i;

/** The smallest round step that keeps a range at or under MAX_POINTS intervals. */
export function chooseStep(rangeSeconds: number): number {
  return NICE_STEPS.find((step) => rangeSeconds / step <= MAX_POINTS) ?? MAX_STEP_SECONDS;
}

/** `cpu,disk`: the types asked for, in the document's order, each once (all three when omitted). */
export function metricTypes(type: string | undefined): MetricType[] {
  if (type === undefined) return [...METRIC_TYPES];
  const asked = type.split(',');
  return METRIC_TYPES.filter((known) => asked.includes(known));
}

function instant(field: 'start' | 'end', text: string | undefined, errors: FieldError[]): number | undefined {
  if (text === undefined) return undefined;
  const ms = Date.parse(text);
  if (!WITH_ZONE.test(text) || Number.isNaN(ms))
    errors.push({ field, message: 'must be an ISO 8601 date-time with a time zone, e.g. 2026-11-26T10:00:00Z' });
  else if (ms < 0) errors.push({ field, message: 'must be after 1970-01-01T00:00:00Z' });
  else return Math.floor(ms / 1000);
  return undefined;
}

/**
 * The range of a metrics request: `end` defaults to now and `start` to an hour before
 * it; at most 30 days; `step` chosen so no series has more than MAX_POINTS intervals, and refused
 * when a given one would exceed it. Every bad value is a 400 naming its field. Both ends are then
 * rounded down to a multiple of the step, so reads a moment apart ask the same points (and share
 * one query, MetricsCache).
 */
export function metricsRange(query: { start?: string; end?: string; step?: string }, now: Date): MetricsRange {
  const errors: FieldError[] = [];
  const nowSeconds = Math.floor(now.getTime() / 1000);
  const end = instant('end', query.end, errors) ?? nowSeconds;
  const start = instant('start', query.start, errors) ?? end - DEFAULT_RANGE_SECONDS;
  if (errors.length) throw Problem.invalidInput('start and end must be ISO 8601 date-times.', errors);
  if (end > nowSeconds + FUTURE_SLACK_SECONDS) errors.push({ field: 'end', message: 'must not be more than a day in the future' });
  else if (start >= end) errors.push({ field: 'start', message: 'must be before end' });
  else if (end - start > MAX_RANGE_SECONDS) errors.push({ field: 'start', message: 'the range may span at most 30 days' });
  const step = query.step === undefined ? chooseStep(end - start) : Number(query.step);
  if (step > MAX_STEP_SECONDS) errors.push({ field: 'step', message: `must be at most ${MAX_STEP_SECONDS} seconds` });
  else if (!errors.length && (end - start) / step > MAX_POINTS) {
    errors.push({
      field: 'step',
      message: `gives more than ${MAX_POINTS} points for this range; use at least ${Math.ceil((end - start) / MAX_POINTS)}`,
    });
  }
  if (errors.length) throw Problem.invalidInput(errors.map((e) => `${e.field} ${e.message}`).join('; '), errors);
  const onStep = (seconds: number) => Math.floor(seconds / step) * step;
  return { start: onStep(start), end: onStep(end), step };
}
