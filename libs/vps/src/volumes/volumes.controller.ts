import { Body, Controller, Get, HttpCode, Post, Query, Res } from '@nestjs/common';
import { ApiAcceptedResponse, ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { ApiProblems, CurrentPrincipal, Idempotent, PageQuery, Paginated, PaginatedResponse, Principal, UuidParam } from '@app/core';
import { VolumeActionResponse } from './dto/volume-action.response';
import { VolumeSummaryResponse } from './dto/volume-summary.response';
import { AttachVolumeRequest, ResizeVolumeRequest } from './dto/volume.request';
import { VolumesService } from './volumes.service';

const PaginatedVolumeActions = PaginatedResponse(VolumeActionResponse, 'PaginatedVolumeActions');

const ACCEPTED_VOLUME_ACTION = {
  type: VolumeActionResponse,
  description: 'The action began; follow Location to see it finish.',
  headers: { Location: { description: 'URL of the action.', schema: { type: 'string', format: 'uri' } } },
};

/** The block device of a volume service and its actions; any other type of service has no volume (404). */
@ApiTags('Services')
@ApiBearerAuth()
@Controller('api/services/:id/volume')
export class VolumesController {
  constructor(private readonly volumes: VolumesService) {}

  @Get()
  @ApiOperation({ summary: 'Get the block device of a volume service', operationId: 'getVolume' })
  @ApiOkResponse({ type: VolumeSummaryResponse })
  @ApiProblems(400, 401, 403, 404, 429)
  get(@CurrentPrincipal() principal: Principal, @UuidParam() id: string): Promise<VolumeSummaryResponse> {
    return this.volumes.get(principal.accountId, id);
  }

  @Post('attach')
  @Idempotent()
  @HttpCode(202)
  @ApiOperation({
    summary: 'Attach a volume to a VPS',
    description:
      "Live on a running VPS (it appears at `volume.device` without a reboot) and kept across stop, start and rebuild. The VPS must be of this account and the volume's region; a volume is on one VPS at a time, a VPS holds at most VOLUMES_PER_VPS.",
    operationId: 'attachVolume',
  })
  @ApiAcceptedResponse(ACCEPTED_VOLUME_ACTION)
  @ApiProblems(
    400,
    401,
    403,
    404,
    { 409: ['invalid_state', 'action_in_progress', 'volume_in_use', 'region_mismatch', 'quota_exceeded'] },
    422,
    429,
  )
  attach(
    @CurrentPrincipal() principal: Principal,
    @UuidParam() id: string,
    @Body() body: AttachVolumeRequest,
    @Res({ passthrough: true }) res: Response,
  ): Promise<VolumeActionResponse> {
    return this.accepted(res, this.volumes.attach(principal, id, body));
  }

  @Post('detach')
  @Idempotent()
  @HttpCode(202)
  @ApiOperation({
    summary: 'Detach a volume from its VPS',
    description:
      'Live on a running VPS: unmount it in the guest first (a guest that keeps the disk fails the action with `detach_refused`, and the volume stays attached).',
    operationId: 'detachVolume',
  })
  @ApiAcceptedResponse(ACCEPTED_VOLUME_ACTION)
  @ApiProblems(400, 401, 403, 404, { 409: ['invalid_state', 'action_in_progress'] }, 422, 429)
  detach(
    @CurrentPrincipal() principal: Principal,
    @UuidParam() id: string,
    @Res({ passthrough: true }) res: Response,
  ): Promise<VolumeActionResponse> {
    return this.accepted(res, this.volumes.detach(principal, id));
  }

  @Post('resize')
  @Idempotent()
  @HttpCode(202)
  @ApiOperation({
    summary: 'Grow a volume',
    description:
      'A larger size only. An attached volume grows under the running guest, which sees the new size at once (grow its filesystem: resize2fs, xfs_growfs). The price follows the size.',
    operationId: 'resizeVolume',
  })
  @ApiAcceptedResponse(ACCEPTED_VOLUME_ACTION)
  @ApiProblems(400, 401, 403, 404, { 409: ['invalid_state', 'action_in_progress'] }, 422, 429)
  resize(
    @CurrentPrincipal() principal: Principal,
    @UuidParam() id: string,
    @Body() body: ResizeVolumeRequest,
    @Res({ passthrough: true }) res: Response,
  ): Promise<VolumeActionResponse> {
    return this.accepted(res, this.volumes.resize(principal, id, body));
  }

  @Get('actions')
  @ApiOperation({ summary: 'List the actions of a volume, newest first', operationId: 'listVolumeActions' })
  @ApiOkResponse({ type: PaginatedVolumeActions })
  @ApiProblems(400, 401, 403, 404, 429)
  list(
    @CurrentPrincipal() principal: Principal,
    @UuidParam() id: string,
    @Query() query: PageQuery,
  ): Promise<Paginated<VolumeActionResponse>> {
    return this.volumes.actions(principal.accountId, id, query);
  }

  @Get('actions/:actionId')
  @ApiOperation({ summary: 'Get a volume action', operationId: 'getVolumeAction' })
  @ApiOkResponse({ type: VolumeActionResponse })
  @ApiProblems(400, 401, 403, 404, 429)
  action(
    @CurrentPrincipal() principal: Principal,
    @UuidParam() id: string,
    @UuidParam('actionId') actionId: string,
  ): Promise<VolumeActionResponse> {
    return this.volumes.action(principal.accountId, id, actionId);
  }

  private async accepted(res: Response, action: Promise<VolumeActionResponse>): Promise<VolumeActionResponse> {
    const started = await action;
    res.setHeader('Location', this.volumes.locationOf(started));
    return started;
  }
}
