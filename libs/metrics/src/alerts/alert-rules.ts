import type { MetricType } from '../metrics-range';
import type { MetricsSeries } from '../source/metrics-source';

export const ALERT_TYPES = ['cpu', 'network.in', 'network.out', 'disk.write'] as const;
export type AlertType = (typeof ALERT_TYPES)[number];
export type AlertState = 'ok' | 'firing';

export const MAX_ALERTS_PER_VPS = 10;
export const MAX_CPU_PERCENT = 100;
/** 1 TB/s: above any NIC or disk a VPS has. */
export const MAX_BYTES_PER_SECOND = 1e12;
/** Seconds between two points of an evaluation's window. */
export const EVALUATION_STEP_SECONDS = 60;

/** The metrics type to read for an alert type, and the series it sums (every disk, every NIC). */
const SOURCES: Record<AlertType, { type: MetricType; series: RegExp }> = {
  cpu: { type: 'cpu', series: /^cpu$/ },
  'network.in': { type: 'network', series: /^network\.\d+\.bandwidth\.in$/ },
  'network.out': { type: 'network', series: /^network\.\d+\.bandwidth\.out$/ },
  'disk.write': { type: 'disk', series: /^disk\.\d+\.bandwidth\.write$/ },
};

export const metricTypeOf = (type: AlertType): MetricType => SOURCES[type].type;

/** The alert's points, oldest first: its series summed per time (a VPS with two disks writes to both). */
export function alertPoints(type: AlertType, series: MetricsSeries): [number, number][] {
  const sums = new Map<number, number>();
  for (const [name, points] of Object.entries(series)) {
    if (!SOURCES[type].series.test(name)) continue;
    for (const [t, v] of points) sums.set(t, (sums.get(t) ?? 0) + v);
  }
  return [...sums.entries()].sort((a, b) => a[0] - b[0]);
}

/**
 * The state the points of a window starting at `since` say: `firing` when they cover the window
 * (a series younger than the window does not) and every one is above the threshold, `ok` when
 * the latest is not; null (no change) for a window without points.
 */
export function stateOf(points: [number, number][], above: number, current: AlertState, since: number): AlertState | null {
  if (points.length === 0) return null;
  if (points[0][0] <= since + EVALUATION_STEP_SECONDS && points.every(([, v]) => v > above)) return 'firing';
  if (points[points.length - 1][1] <= above) return 'ok';
  return current;
}

/** The upper bound of `above` for a type (percent for CPU, bytes/s for bandwidth). */
export const maxAbove = (type: AlertType): number => (type === 'cpu' ? MAX_CPU_PERCENT : MAX_BYTES_PER_SECOND);
