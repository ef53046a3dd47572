import { Injectable } from '@nestjs/common';
import { Problem } from '@app/core';
import { VpsStates } from '@app/vps';
import { MetricsQuery } from './dto/metrics.query';
import { MetricsResponse } from './dto/metrics.response';
import { metricsRange, metricTypes } from './metrics-range';
import { MetricsSource } from './source/metrics-source';

/** A VPS's series for its owner: the range checked first, then the VPS (404 for another's or a non-VPS), then the source. */
@Injectable()
export class MetricsService {
  constructor(
    private readonly vps: VpsStates,
    private readonly source: MetricsSource,
  ) {}

  async read(accountId: string, serviceId: string, query: MetricsQuery): Promise<MetricsResponse> {
    const types = metricTypes(query.type);
    const range = metricsRange(query, new Date());
    const state = await this.vps.forAccount(accountId, serviceId);
    if (!state) throw Problem.notFound('Service');
    if (!state.powerState) throw new Problem(404, 'not_found', 'This service has no instance (it is not a VPS).');
    const series = await this.source.read({ serviceId, region: state.region ?? '' }, types, range);
    return MetricsResponse.from(range, types, series);
  }
}
