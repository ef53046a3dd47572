import { Body, Controller, Get, HttpCode, Post, Query, Res } from '@nestjs/common';
import { ApiAcceptedResponse, ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { ApiProblems, CurrentPrincipal, Idempotent, PageQuery, Paginated, PaginatedResponse, Principal, UuidParam } from '@app/core';
import { InstanceActionResponse } from '../actions/dto/instance-action.response';
import { ImageResponse } from '../images/dto/image.response';
import { acceptedAction } from '../actions/accepted-action';
import { InstanceActionsService } from '../actions/instance-actions.service';
import { BackupImages } from './backup-images';
import { BackupsService } from './backups.service';
import { BackupImageRequest } from './dto/backup-image.request';
import { BackupSettingsResponse } from './dto/backup-settings.response';
import { BackupResponse } from './dto/backup.response';

const PaginatedBackups = PaginatedResponse(BackupResponse, 'PaginatedBackups');

/** A VPS's daily backups, kept off the hypervisor; any other type of service has none (404). */
@ApiTags('Services')
@ApiBearerAuth()
@Controller('api/services/:id/instance/backups')
export class BackupsController {
  constructor(
    private readonly backups: BackupsService,
    private readonly images: BackupImages,
    private readonly actions: InstanceActionsService,
  ) {}

  @Get()
  @ApiOperation({ summary: "List a VPS's backups, newest first", operationId: 'listInstanceBackups' })
  @ApiOkResponse({ type: PaginatedBackups })
  @ApiProblems(400, 401, 403, 404, 429)
  list(@CurrentPrincipal() principal: Principal, @UuidParam() id: string, @Query() query: PageQuery): Promise<Paginated<BackupResponse>> {
    return this.backups.list(principal.accountId, id, query);
  }

  @Post('enable')
  @Idempotent()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Enable daily backups of a VPS',
    description:
      "One backup a day at the VPS's own minute of the operator's window, the newest BACKUP_RETENTION kept, stored off the hypervisor. Enabling twice changes nothing.",
    operationId: 'enableInstanceBackups',
  })
  @ApiOkResponse({ type: BackupSettingsResponse })
  @ApiProblems(400, 401, 403, 404, { 409: ['invalid_state'] }, 422, 429)
  enable(@CurrentPrincipal() principal: Principal, @UuidParam() id: string): Promise<BackupSettingsResponse> {
    return this.backups.enable(principal, id);
  }

  @Post('disable')
  @Idempotent()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Disable daily backups of a VPS',
    description: 'No more daily backups; those already made stay listed and restorable until the service is terminated.',
    operationId: 'disableInstanceBackups',
  })
  @ApiOkResponse({ type: BackupSettingsResponse })
  @ApiProblems(400, 401, 403, 404, 422, 429)
  disable(@CurrentPrincipal() principal: Principal, @UuidParam() id: string): Promise<BackupSettingsResponse> {
    return this.backups.disable(principal, id);
  }

  @Post(':backupId/restore')
  @Idempotent()
  @HttpCode(202)
  @ApiOperation({
    summary: "Restore a VPS's disk from one of its backups",
    description:
      'Powers the machine off, replaces its disk with the backup (everything written since is lost) and boots it: a `restore` action, followed like the power actions. It also makes again a machine its hypervisor lost (the one action such a VPS takes).',
    operationId: 'restoreInstanceBackup',
  })
  @ApiAcceptedResponse({
    type: InstanceActionResponse,
    description: 'The restore began; follow Location to see it finish.',
    headers: { Location: { description: 'URL of the action.', schema: { type: 'string', format: 'uri' } } },
  })
  @ApiProblems(400, 401, 403, 404, { 409: ['invalid_state', 'action_in_progress'] }, 422, 429)
  async restore(
    @CurrentPrincipal() principal: Principal,
    @UuidParam() id: string,
    @UuidParam('backupId') backupId: string,
    @Res({ passthrough: true }) res: Response,
  ): Promise<InstanceActionResponse> {
    return acceptedAction(res, this.actions, this.backups.restore(principal, id, backupId));
  }

  @Post(':backupId/image')
  @Idempotent()
  @HttpCode(202)
  @ApiOperation({
    summary: 'Turn a backup into a snapshot image of the account',
    description:
      'A new image (`type: snapshot`, `creating` until the backup is copied into it) that rebuilds and new VPSes can be built from. Counts toward SNAPSHOTS_PER_ACCOUNT (409 `quota_exceeded`).',
    operationId: 'createImageFromBackup',
  })
  @ApiAcceptedResponse({
    type: ImageResponse,
    description: 'The image is being made; follow Location until its status is `available`.',
    headers: { Location: { description: 'URL of the image.', schema: { type: 'string', format: 'uri' } } },
  })
  @ApiProblems(400, 401, 403, 404, { 409: ['invalid_state', 'quota_exceeded'] }, 422, 429)
  async image(
    @CurrentPrincipal() principal: Principal,
    @UuidParam() id: string,
    @UuidParam('backupId') backupId: string,
    @Body() body: BackupImageRequest,
    @Res({ passthrough: true }) res: Response,
  ): Promise<ImageResponse> {
    const image = await this.images.create(principal, id, backupId, body.name);
    res.setHeader('Location', this.images.locationOf(image));
    return image;
  }
}
