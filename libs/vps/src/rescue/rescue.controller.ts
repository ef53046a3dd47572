import { Body, Controller, Header, HttpCode, Post, Res } from '@nestjs/common';
import { ApiAcceptedResponse, ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { ApiProblems, CurrentPrincipal, Idempotent, Principal, RateLimit, UuidParam } from '@app/core';
import { ACCEPTED_ACTION, acceptedAction } from '../actions/accepted-action';
import { InstanceActionResponse } from '../actions/dto/instance-action.response';
import { InstanceActionsService } from '../actions/instance-actions.service';
import { RescueActionResponse } from './dto/rescue-action.response';
import { RescueInstanceRequest } from './dto/rescue-instance.request';
import { RootPasswordResponse } from './dto/root-password.response';
import { RescueService } from './rescue.service';
import { RootPasswordService } from './root-password/root-password.service';

/** Getting into a VPS one cannot log into: a new root password, or the rescue system. */
@ApiTags('Services')
@ApiBearerAuth()
@Controller('api/services/:id/instance')
export class RescueController {
  constructor(
    private readonly actions: InstanceActionsService,
    private readonly rootPasswords: RootPasswordService,
    private readonly rescues: RescueService,
  ) {}

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
  @ApiAcceptedResponse({ ...ACCEPTED_ACTION, type: RescueActionResponse })
  @ApiProblems(400, 401, 403, 404, { 409: ['invalid_state', 'action_in_progress'] }, 429)
  rescue(
    @CurrentPrincipal() principal: Principal,
    @UuidParam() id: string,
    @Body() body: RescueInstanceRequest,
    @Res({ passthrough: true }) res: Response,
  ): Promise<RescueActionResponse> {
    return acceptedAction(res, this.actions, this.rescues.rescue(principal, id, body.sshKeyIds ?? 'all'));
  }

  @Post('unrescue')
  @Idempotent()
  @HttpCode(202)
  @ApiOperation({
    summary: 'Boot a VPS from its own disk again, ending its rescue',
    description: "Shuts the rescue system down and boots the VPS's own disk with its own seed; the rescue system's disk is deleted.",
    operationId: 'unrescueInstance',
  })
  @ApiAcceptedResponse(ACCEPTED_ACTION)
  @ApiProblems(400, 401, 403, 404, { 409: ['invalid_state', 'action_in_progress'] }, 422, 429)
  unrescue(
    @CurrentPrincipal() principal: Principal,
    @UuidParam() id: string,
    @Res({ passthrough: true }) res: Response,
  ): Promise<InstanceActionResponse> {
    return acceptedAction(res, this.actions, this.rescues.unrescue(principal, id));
  }
}
