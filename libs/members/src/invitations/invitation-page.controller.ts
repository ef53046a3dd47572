import { Controller, Get, Query, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { Public, sendPage } from '@app/core';
import { InvitationsService } from './invitations.service';

/** The page an invitation's link opens when no dashboard is configured: outside /api, open, and it spends nothing. */
@ApiExcludeController()
@Public()
@Controller('account')
export class InvitationPageController {
  constructor(private readonly invitations: InvitationsService) {}

  @Get('accept-invitation')
  async show(@Query('token') token: unknown, @Res() res: Response): Promise<void> {
    sendPage(res, await this.invitations.page(typeof token === 'string' ? token : ''));
  }
}
