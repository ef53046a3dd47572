import { Body, Controller, Delete, Get, HttpCode, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiProblems, CurrentPrincipal, Idempotent, PageQuery, Paginated, PaginatedResponse, Principal, UuidParam } from '@app/core';
import { AlertsService } from './alerts.service';
import { InstanceAlertResponse } from './dto/alert.response';
import { CreateInstanceAlertRequest } from './dto/create-alert.request';

const PaginatedAlerts = PaginatedResponse(InstanceAlertResponse, 'PaginatedInstanceAlerts');

@ApiTags('Services')
@ApiBearerAuth()
@Controller('api/services/:id/instance/alerts')
export class AlertsController {
  constructor(private readonly alerts: AlertsService) {}

  @Post()
  @Idempotent()
  @ApiOperation({
    summary: 'Create a metric alert on a VPS instance',
    description:
      'Checked every minute against the metrics system: it fires (an `instance_alert_fired` notification and an `instance.alert_fired` webhook event) when every point of the last `forMinutes` is above `above`, and resolves when the latest point is not; once per crossing. At most 10 per VPS.',
    operationId: 'createInstanceAlert',
  })
  @ApiProblems(400, 403, 404, { 409: ['quota_exceeded'] })
  create(
    @CurrentPrincipal() principal: Principal,
    @UuidParam() id: string,
    @Body() body: CreateInstanceAlertRequest,
  ): Promise<InstanceAlertResponse> {
    return this.alerts.create(principal, id, body);
  }

  @Get()
  @ApiOperation({ summary: 'List the metric alerts of a VPS instance', operationId: 'listInstanceAlerts' })
  @ApiOkResponse({ type: PaginatedAlerts })
  @ApiProblems(400, 404)
  list(
    @CurrentPrincipal() principal: Principal,
    @UuidParam() id: string,
    @Query() query: PageQuery,
  ): Promise<Paginated<InstanceAlertResponse>> {
    return this.alerts.list(principal.accountId, id, query);
  }

  @Delete(':alertId')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete a metric alert', operationId: 'deleteInstanceAlert' })
  @ApiProblems(400, 403, 404)
  remove(@CurrentPrincipal() principal: Principal, @UuidParam() id: string, @UuidParam('alertId') alertId: string): Promise<void> {
    return this.alerts.remove(principal, id, alertId);
  }
}
