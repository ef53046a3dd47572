import { Body, Controller, Get, Post, Query, Res, UseFilters } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { CurrentClient, Public, RateLimit, RequestFacts, sendPage } from '@app/core';
import { AccountPagesService } from './account-pages.service';
import { PageErrorFilter } from './page-error.filter';

/**
 * HTML pages for the mailed links, not part of the API: outside /api and its
 * document, open without a bearer token (the token in the link or form is the credential),
 * the posts limited as the API routes that do the same.
 */
@ApiExcludeController()
@Public()
@UseFilters(PageErrorFilter)
@Controller('account')
export class AccountPagesController {
  constructor(private readonly pages: AccountPagesService) {}

  @Get('reset-password')
  async resetForm(@Query() query: Record<string, unknown>, @Res() res: Response): Promise<void> {
    sendPage(res, await this.pages.resetForm(query));
  }

  @RateLimit('password-reset')
  @Post('reset-password')
  async reset(@Body() form: Record<string, unknown>, @CurrentClient() client: RequestFacts, @Res() res: Response): Promise<void> {
    sendPage(res, await this.pages.reset(form, client));
  }

  @Get('confirm-email')
  async confirmForm(@Query() query: Record<string, unknown>, @Res() res: Response): Promise<void> {
    sendPage(res, await this.pages.confirmForm(query));
  }

  @RateLimit('login')
  @Post('confirm-email')
  async confirm(@Body() form: Record<string, unknown>, @CurrentClient() client: RequestFacts, @Res() res: Response): Promise<void> {
    sendPage(res, await this.pages.confirm(form, client));
  }
}
