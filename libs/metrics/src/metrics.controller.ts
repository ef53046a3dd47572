import { Controller, Get, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiProblems, CurrentPrincipal, Principal, RateLimit, UuidParam } from '@app/core';
import { MetricsQuery } from './dto/metrics.query';
import { MetricsResponse } from './dto/metrics.response';
import { MetricsService } from './metrics.service';

@ApiTags('Services')
@ApiBearerAuth()
@Controller('api/services/:id/instance')
export class MetricsController {
  constructor(private readonly metrics: MetricsService) {}

  @Get('metrics')
  @RateLimit('metrics')
  @ApiOperation({
    summary: 'Read the CPU, disk and network series of a VPS instance',
    description:
      "From the hypervisor through the metrics system (Prometheus). CPU in percent of the VPS's vCPUs, bandwidth in bytes/s, iops in operations/s. Ranges up to 30 days; the step is at least the range divided by 1000 (a day: 87 s, 30 days: 2592 s), so a series has at most 1001 points, and `start` and `end` are rounded down to a multiple of the step. A read costs the metrics system time in proportion to its range: an account may make RATE_LIMIT_METRICS_PER_MINUTE reads a minute (default 60, over all its keys and tokens; past it 429 `rate_limited`), and identical reads within METRICS_CACHE_SECONDS (default 5) share one answer.",
    operationId: 'getInstanceMetrics',
  })
  @ApiOkResponse({ type: MetricsResponse })
  @ApiProblems(400, 401, 403, 404, 429, { 503: ['unavailable', 'metrics_unavailable'] })
  read(@CurrentPrincipal() principal: Principal, @UuidParam() id: string, @Query() query: MetricsQuery): Promise<MetricsResponse> {
    return this.metrics.read(principal.accountId, id, query);
  }
}
