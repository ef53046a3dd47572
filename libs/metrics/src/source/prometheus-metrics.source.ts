import { Logger } from '@nestjs/common';
import type { MetricsConfig } from '@app/core';
import type { MetricsRange, MetricType } from '../metrics-range';
import { MetricsSeries, MetricsSource, MetricsTarget, MetricsUnavailable } from './metrics-source';
import { postForm } from './prometheus-http';
import { PrometheusMatrixEntry, seriesFromMatrix } from './prometheus-series';
import { metricsQuery } from './promql';

interface QueryRangeAnswer {
  status?: string;
  error?: string;
  data?: { resultType?: string; result?: PrometheusMatrixEntry[] };
}

/**
 * The series from a Prometheus-compatible HTTP API (Prometheus, VictoriaMetrics, Thanos): one
 * `query_range` per request, built from the service id alone, cut off after METRICS_TIMEOUT_MS.
 */
export class PrometheusMetricsSource extends MetricsSource {
  private readonly logger = new Logger('PrometheusMetricsSource');

  constructor(private readonly config: MetricsConfig) {
    super();
  }

  async read(target: MetricsTarget, types: MetricType[], range: MetricsRange): Promise<MetricsSeries> {
    const base = this.config.regionUrls[target.region] ?? this.config.prometheusUrl;
    if (!base) throw new MetricsUnavailable("No metrics system is configured for this VPS's region.");
    const form = new URLSearchParams({
      query: metricsQuery(target.serviceId, types, range.step),
      start: String(range.start),
      end: String(range.end),
      step: String(range.step),
    });
    let answer: QueryRangeAnswer;
    try {
      const response = await postForm(`${base}/api/v1/query_range`, form, this.config.timeoutMs);
      answer = JSON.parse(response.body) as QueryRangeAnswer;
      if (response.status !== 200 || answer.status !== 'success' || answer.data?.resultType !== 'matrix') {
        throw new Error(`HTTP ${response.status}: ${answer.error ?? answer.status}`);
      }
    } catch (err) {
      this.logger.warn(`query_range at ${base} failed: ${(err as Error).message}`);
      throw new MetricsUnavailable(`The metrics system did not answer within ${this.config.timeoutMs} ms. Retry shortly.`);
    }
    return seriesFromMatrix(answer.data?.result ?? []);
  }
}
