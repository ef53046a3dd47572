import { Injectable } from '@nestjs/common';
import { VpsStates } from '@app/vps';
import { MetricsQuery } from './dto/metrics.query';
import { MetricsResponse } from './dto/metrics.response';
import { liveVps } from './live-vps';
import { MetricsCache } from './metrics-cache';
import { metricsRange, metricTypes } from './metrics-range';
import { MetricsSource } from './source/metrics-source';

/**
 * A VPS's series for its owner: the range checked first, then the VPS (404 for another's, a
 * terminated one or a non-VPS), then the source, through the cache of identical reads.
 */
@Injectable()
export class MetricsService {
  constructor(
    private readonly vps: VpsStates,
    private readonly source: MetricsSource,
    private readonly cache: MetricsCache,
  ) {}

  async read(accountId: string, serviceId: string, query: MetricsQuery): Promise<MetricsResponse> {
    const types = metricTypes(query.type);
    const range = metricsRange(query, new Date());
    const state = liveVps(await this.vps.forAccount(accountId, serviceId));
    const key = [accountId, serviceId, types.join(','), range.start, range.end, range.step].join(':');
    const series = await this.cache.read(key, () => this.source.read({ serviceId, region: state.region ?? '' }, types, range));
    return MetricsResponse.from(range, types, series);
  }
}
