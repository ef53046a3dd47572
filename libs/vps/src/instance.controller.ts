import { Body, Controller, Get, Header, HttpCode, Post, Query, Res } from '@nestjs/common';
import { ApiAcceptedResponse, ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import {
  ApiProblems,
  CurrentPrincipal,
  Idempotent,
  PageQuery,
  Paginated,
  PaginatedResponse,
  Principal,
  RateLimit,
  RequireScope,
  UuidParam,
} from '@app/core';
import { ConsoleIssuer } from './console/console-issuer';
import { ConsoleSessionResponse } from './console/dto/console-session.response';
import { CreateSnapshotRequest } from './backups/dto/create-snapshot.request';
import { InstanceActionResponse } from './actions/dto/instance-action.response';
import { RebuildInstanceRequest } from './actions/dto/rebuild-instance.request';
import { RootPasswordResponse } from './rescue/dto/root-password.response';
import { RootPasswordService } from './rescue/root-password/root-password.service';
import { InstanceActionHistory } from './actions/instance-action-history';
import { InstanceActionsService } from './actions/instance-actions.service';
import { RescueActionResponse } from './rescue/dto/rescue-action.response';
import { RescueInstanceRequest } from './rescue/dto/rescue-instance.request';
import { RescueService } from './rescue/rescue.service';

const PaginatedInstanceActions = PaginatedResponse(InstanceActionResponse, 'PaginatedInstanceActions');
const ACCEPTED = {
  type: InstanceActionResponse,
  description: 'The action began; follow Location to see it finish.',
  headers: { Location: { description: 'URL of the action.', schema: { type: 'string', format: 'uri' } } },
};

/** The virtual machine of a VPS service; any other type of service has no instance (404). */
@ApiTags('Services')
@ApiBearerAuth()
@Controller('api/services/:id/instance')
export class InstanceController {
  constructor(
    private readonly actions: InstanceActionsService,
    private readonly history: InstanceActionHistory,
    private readonly consoles: ConsoleIssuer,
    private readonly rootPasswords: RootPasswordService,
    private readonly rescues: RescueService,
  ) {}

  @Post('start')
  @Idempotent()
  @HttpCode(202)
  @ApiOperation({ summary: 'Start a VPS instance', operationId: 'startInstance' })
  @ApiAcceptedResponse(ACCEPTED)
  @ApiProblems(400, 401, 403, 404, { 409: ['invalid_state', 'action_in_progress'], 503: ['hypervisor_unavailable'] }, 422, 429)
  start(
    @CurrentPrincipal() principal: Principal,
    @UuidParam() id: string,
    @Res({ passthrough: true }) res: Response,
  ): Promise<InstanceActionResponse> {
    return this.accepted(res, this.actions.request(principal, id, 'start'));
  }

  @Post('stop')
  @Idempotent()
  @HttpCode(202)
  @ApiOperation({ summary: 'Stop a VPS instance (graceful shutdown)', operationId: 'stopInstance' })
  @ApiAcceptedResponse(ACCEPTED)
  @ApiProblems(400, 401, 403, 404, { 409: ['invalid_state', 'action_in_progress'], 503: ['hypervisor_unavailable'] }, 422, 429)
  stop(
    @CurrentPrincipal() principal: Principal,
    @UuidParam() id: string,
    @Res({ passthrough: true }) res: Response,
  ): Promise<InstanceActionResponse> {
    return this.accepted(res, this.actions.request(principal, id, 'stop'));
  }

  @Post('reboot')
  @Idempotent()
  @HttpCode(202)
  @ApiOperation({ summary: 'Reboot a VPS instance', operationId: 'rebootInstance' })
  @ApiAcceptedResponse(ACCEPTED)
  @ApiProblems(400, 401, 403, 404, { 409: ['invalid_state', 'action_in_progress'], 503: ['hypervisor_unavailable'] }, 422, 429)
  reboot(
    @CurrentPrincipal() principal: Principal,
    @UuidParam() id: string,
    @Res({ passthrough: true }) res: Response,
  ): Promise<InstanceActionResponse> {
    return this.accepted(res, this.actions.request(principal, id, 'reboot'));
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
  @ApiAcceptedResponse(ACCEPTED)
  @ApiProblems(400, 401, 403, 404, { 409: ['invalid_state', 'action_in_progress'], 503: ['hypervisor_unavailable'] }, 422, 429)
  rebuild(
    @CurrentPrincipal() principal: Principal,
    @UuidParam() id: string,
    @Body() body: RebuildInstanceRequest,
    @Res({ passthrough: true }) res: Response,
  ): Promise<InstanceActionResponse> {
    return this.accepted(res, this.actions.request(principal, id, 'rebuild', { rebuild: body }));
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
  @ApiAcceptedResponse(ACCEPTED)
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
    return this.accepted(res, this.actions.request(principal, id, 'snapshot', { snapshot: body }));
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

  @Get('console')
  @RequireScope('write')
  @RateLimit('console')
  @Header('Cache-Control', 'no-store')
  @ApiOperation({ summary: 'Create a VNC console session (single use, 60 seconds)', operationId: 'openInstanceConsole' })
  @ApiOkResponse({ type: ConsoleSessionResponse })
  @ApiProblems(400, 401, 403, 404, { 409: ['invalid_state', 'quota_exceeded'], 503: ['unavailable', 'hypervisor_unavailable'] }, 429)
  console(@CurrentPrincipal() principal: Principal, @UuidParam() id: string): Promise<ConsoleSessionResponse> {
    return this.consoles.open(principal, id);
  }

  // Not @Idempotent: a replay would have to store the password to answer it again.
  @Post('reset-password')
  @HttpCode(200)
  @RateLimit('root-password')
  @Header('Cache-Control', 'no-store')
  @ApiOperation({
    summary: 'Reset the root password of a running VPS',
    description:
      'Makes a new password for root and sets it in the running guest through its QEMU guest agent (the guest needs qemu-guest-agent running). The password is in this answer only: it is stored nowhere, and the activity log and webhooks record only that it was reset. At most RATE_LIMIT_ROOT_PASSWORD_PER_HOUR resets per account an hour.',
    operationId: 'resetInstancePassword',
  })
  @ApiOkResponse({ type: RootPasswordResponse })
  @ApiProblems(400, 401, 403, 404, { 409: ['invalid_state', 'guest_agent_unavailable'], 503: ['hypervisor_unavailable'] }, 429)
  resetPassword(@CurrentPrincipal() principal: Principal, @UuidParam() id: string): Promise<RootPasswordResponse> {
    return this.rootPasswords.reset(principal, id);
  }

  // Not @Idempotent, as reset-password: a replay would have to store the rescue's password to answer it again.
  @Post('rescue')
  @HttpCode(202)
  @RateLimit('rescue')
  @Header('Cache-Control', 'no-store')
  @ApiOperation({
    summary: 'Boot a VPS into the rescue system',
    description:
      "Shuts the VPS down and boots the rescue system, with the VPS's own disk attached as the second disk (`/dev/vdb`, not mounted) and root logging in with the chosen SSH keys (all of the account's when `sshKeyIds` is omitted). `rootPassword`, root's password in the rescue system (for the console), is in this answer only. Power actions stay in the rescue system; rebuild, snapshot and reset-password answer 409 until unrescue. The rescue ends by itself after RESCUE_HOURS (`rescueEndsAt`). At most RATE_LIMIT_RESCUE_PER_HOUR rescues per account an hour.",
    operationId: 'rescueInstance',
  })
  @ApiAcceptedResponse({ ...ACCEPTED, type: RescueActionResponse })
  @ApiProblems(400, 401, 403, 404, { 409: ['invalid_state', 'action_in_progress'] }, 429)
  rescue(
    @CurrentPrincipal() principal: Principal,
    @UuidParam() id: string,
    @Body() body: RescueInstanceRequest,
    @Res({ passthrough: true }) res: Response,
  ): Promise<RescueActionResponse> {
    return this.accepted(res, this.rescues.rescue(principal, id, body.sshKeyIds ?? 'all'));
  }

  @Post('unrescue')
  @Idempotent()
  @HttpCode(202)
  @ApiOperation({
    summary: 'Boot a VPS from its own disk again, ending its rescue',
    description: "Shuts the rescue system down and boots the VPS's own disk with its own seed; the rescue system's disk is deleted.",
    operationId: 'unrescueInstance',
  })
  @ApiAcceptedResponse(ACCEPTED)
  @ApiProblems(400, 401, 403, 404, { 409: ['invalid_state', 'action_in_progress'] }, 422, 429)
  unrescue(
    @CurrentPrincipal() principal: Principal,
    @UuidParam() id: string,
    @Res({ passthrough: true }) res: Response,
  ): Promise<InstanceActionResponse> {
    return this.accepted(res, this.rescues.unrescue(principal, id));
  }

  private async accepted<T extends InstanceActionResponse>(res: Response, action: Promise<T>): Promise<T> {
    const started = await action;
    res.setHeader('Location', this.actions.locationOf(started));
    return started;
  }
}
