import { Body, Controller, Get, HttpCode, Post, Query, Res } from '@nestjs/common';
import { ApiAcceptedResponse, ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { ApiProblems, CurrentPrincipal, Idempotent, PageQuery, Paginated, PaginatedResponse, Principal, UuidParam } from '@app/core';
import { CreateSnapshotRequest } from './backups/dto/create-snapshot.request';
import { ACCEPTED_ACTION, acceptedAction } from './actions/accepted-action';
import { InstanceActionResponse } from './actions/dto/instance-action.response';
import { RebuildInstanceRequest } from './actions/dto/rebuild-instance.request';
import { InstanceActionHistory } from './actions/instance-action-history';
import { InstanceActionsService } from './actions/instance-actions.service';

const PaginatedInstanceActions = PaginatedResponse(InstanceActionResponse, 'PaginatedInstanceActions');

/** The virtual machine of a VPS service and its actions; any other type of service has no instance (404). */
@ApiTags('Services')
@ApiBearerAuth()
@Controller('api/services/:id/instance')
export class InstanceController {
  constructor(
    private readonly actions: InstanceActionsService,
    private readonly history: InstanceActionHistory,
  ) {}

  @Post('start')
  @Idempotent()
  @HttpCode(202)
  @ApiOperation({ summary: 'Start a VPS instance', operationId: 'startInstance' })
  @ApiAcceptedResponse(ACCEPTED_ACTION)
  @ApiProblems(400, 401, 403, 404, { 409: ['invalid_state', 'action_in_progress'], 503: ['hypervisor_unavailable'] }, 422, 429)
  start(
    @CurrentPrincipal() principal: Principal,
    @UuidParam() id: string,
    @Res({ passthrough: true }) res: Response,
  ): Promise<InstanceActionResponse> {
    return acceptedAction(res, this.actions, this.actions.request(principal, id, 'start'));
  }

  @Post('stop')
  @Idempotent()
  @HttpCode(202)
  @ApiOperation({ summary: 'Stop a VPS instance (graceful shutdown)', operationId: 'stopInstance' })
  @ApiAcceptedResponse(ACCEPTED_ACTION)
  @ApiProblems(400, 401, 403, 404, { 409: ['invalid_state', 'action_in_progress'], 503: ['hypervisor_unavailable'] }, 422, 429)
  stop(
    @CurrentPrincipal() principal: Principal,
    @UuidParam() id: string,
    @Res({ passthrough: true }) res: Response,
  ): Promise<InstanceActionResponse> {
    return acceptedAction(res, this.actions, this.actions.request(principal, id, 'stop'));
  }

  @Post('reboot')
  @Idempotent()
  @HttpCode(202)
  @ApiOperation({ summary: 'Reboot a VPS instance', operationId: 'rebootInstance' })
  @ApiAcceptedResponse(ACCEPTED_ACTION)
  @ApiProblems(400, 401, 403, 404, { 409: ['invalid_state', 'action_in_progress'], 503: ['hypervisor_unavailable'] }, 422, 429)
  reboot(
    @CurrentPrincipal() principal: Principal,
    @UuidParam() id: string,
    @Res({ passthrough: true }) res: Response,
  ): Promise<InstanceActionResponse> {
    return acceptedAction(res, this.actions, this.actions.request(principal, id, 'reboot'));
  }

  @Post('rebuild')
  @Idempotent()
  @HttpCode(202)
  @ApiOperation({
    summary: 'Rebuild a VPS instance from an image (wipes its disk)',
    description:
      "Powers the machine off, makes its disk again from the image with a new cloud-init seed holding the chosen SSH keys (all of the account's when `sshKeyIds` is omitted) and boots it. Everything on the old disk is lost.",
    operationId: 'rebuildInstance',
  })
  @ApiAcceptedResponse(ACCEPTED_ACTION)
  @ApiProblems(400, 401, 403, 404, { 409: ['invalid_state', 'action_in_progress'], 503: ['hypervisor_unavailable'] }, 422, 429)
  rebuild(
    @CurrentPrincipal() principal: Principal,
    @UuidParam() id: string,
    @Body() body: RebuildInstanceRequest,
    @Res({ passthrough: true }) res: Response,
  ): Promise<InstanceActionResponse> {
    return acceptedAction(res, this.actions, this.actions.request(principal, id, 'rebuild', { rebuild: body }));
  }

  @Post('snapshots')
  @Idempotent()
  @HttpCode(202)
  @ApiOperation({
    summary: 'Snapshot a VPS instance into an image of the account',
    description:
      "Copies the VPS's disk, live when it runs, into a new image (`type: snapshot`, listed by GET /api/images, `creating` until the action ends) that rebuilds and new VPSes of this account can be built from. The action's `snapshot.consistency` says whether the guest's filesystems were frozen for the copy. At most SNAPSHOTS_PER_ACCOUNT snapshots per account (409 `quota_exceeded`).",
    operationId: 'snapshotInstance',
  })
  @ApiAcceptedResponse(ACCEPTED_ACTION)
  @ApiProblems(
    400,
    401,
    403,
    404,
    { 409: ['invalid_state', 'action_in_progress', 'quota_exceeded'], 503: ['hypervisor_unavailable'] },
    422,
    429,
  )
  snapshot(
    @CurrentPrincipal() principal: Principal,
    @UuidParam() id: string,
    @Body() body: CreateSnapshotRequest,
    @Res({ passthrough: true }) res: Response,
  ): Promise<InstanceActionResponse> {
    return acceptedAction(res, this.actions, this.actions.request(principal, id, 'snapshot', { snapshot: body }));
  }

  @Get('actions')
  @ApiOperation({ summary: 'List the power actions of a VPS instance, newest first', operationId: 'listInstanceActions' })
  @ApiOkResponse({ type: PaginatedInstanceActions })
  @ApiProblems(400, 401, 403, 404, 429)
  list(
    @CurrentPrincipal() principal: Principal,
    @UuidParam() id: string,
    @Query() query: PageQuery,
  ): Promise<Paginated<InstanceActionResponse>> {
    return this.history.list(principal.accountId, id, query);
  }

  @Get('actions/:actionId')
  @ApiOperation({ summary: 'Get a power action', operationId: 'getInstanceAction' })
  @ApiOkResponse({ type: InstanceActionResponse })
  @ApiProblems(400, 401, 403, 404, 429)
  get(
    @CurrentPrincipal() principal: Principal,
    @UuidParam() id: string,
    @UuidParam('actionId') actionId: string,
  ): Promise<InstanceActionResponse> {
    return this.history.get(principal.accountId, id, actionId);
  }
}
