import type { MetricsSeries } from './metrics-source';

/** One series of a `query_range` answer (`resultType: matrix`). */
export interface PrometheusMatrixEntry {
  metric: Record<string, string>;
  values: [number, string][];
}

const round = (value: number) => Math.round(value * 1000) / 1000;

/**
 * The answer of `metricsQuery` as the API's series: `disk.iops.read` of device `vdb` becomes
 * `disk.1.iops.read` (devices numbered in name order per kind), values rounded to 3 decimals, and
 * points that are not numbers (NaN of a division by a missing vCPU count) left out.
 */
export function seriesFromMatrix(result: PrometheusMatrixEntry[]): MetricsSeries {
  const devices = new Map<string, string[]>();
  for (const { metric } of result) {
    const kind = metric.series?.split('.')[0];
    if (!kind || kind === 'cpu' || metric.target_device === undefined) continue;
    const list = devices.get(kind) ?? [];
    if (!list.includes(metric.target_device)) devices.set(kind, [...list, metric.target_device].sort());
  }
  const series: MetricsSeries = {};
  for (const { metric, values } of result) {
    if (!metric.series) continue;
    const [kind, ...rest] = metric.series.split('.');
    const name = kind === 'cpu' ? 'cpu' : [kind, devices.get(kind)?.indexOf(metric.target_device ?? '') ?? 0, ...rest].join('.');
    const points: [number, number][] = [];
    for (const [t, v] of values) {
      const value = Number(v);
      if (Number.isFinite(value)) points.push([t, round(value)]);
    }
    if (points.length) series[name] = points;
  }
  return series;
}
