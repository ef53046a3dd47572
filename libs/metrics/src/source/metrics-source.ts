import type { MetricsRange, MetricType } from '../metrics-range';

/** The VPS whose series are read: its service id (the hypervisor's domain is `svc-<id>`) and its region. */
export interface MetricsTarget {
  serviceId: string;
  region: string;
}

/** Points `[unix seconds, value]` by series name (`cpu`, `disk.0.iops.read`, `network.0.bandwidth.in`, ...). */
export type MetricsSeries = Record<string, [number, number][]>;

/**
 * Where a VPS's CPU, disk and network series come from: a Prometheus-compatible query
 * API in production, a simulation for the embedded default. A type the source has nothing for is
 * left out of the answer.
 */
export abstract class MetricsSource {
  /** Throws MetricsUnavailable when the metrics system has no answer. */
  abstract read(target: MetricsTarget, types: MetricType[], range: MetricsRange): Promise<MetricsSeries>;
}

/** No metrics system for the VPS's region, or none that answered in time (the API's 503 `metrics_unavailable`, metrics.problems.ts). */
export class MetricsUnavailable extends Error {}
