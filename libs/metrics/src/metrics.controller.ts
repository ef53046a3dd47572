import { Controller, Get, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiProblems, CurrentPrincipal, Principal, UuidParam } from '@app/core';
import { MetricsQuery } from './dto/metrics.query';
import { MetricsResponse } from './dto/metrics.response';
import { MetricsService } from './metrics.service';

@ApiTags('Services')
@ApiBearerAuth()
@Controller('api/services/:id/instance')
export class MetricsController {
  constructor(private readonly metrics: MetricsService) {}

  @Get('metrics')
  @ApiOperation({
    summary: 'Read the CPU, disk and network series of a VPS instance',
    description:
      "From the hypervisor through the metrics system (Prometheus). CPU in percent of the VPS's vCPUs, bandwidth in bytes/s, iops in operations/s; ranges up to 30 days, at most 1000 intervals per series.",
    operationId: 'getInstanceMetrics',
  })
  @ApiOkResponse({ type: MetricsResponse })
  @ApiProblems(400, 401, 403, 404, 429, { 503: ['unavailable', 'metrics_unavailable'] })
  read(@CurrentPrincipal() principal: Principal, @UuidParam() id: string, @Query() query: MetricsQuery): Promise<MetricsResponse> {
    return this.metrics.read(principal.accountId, id, query);
  }
}
