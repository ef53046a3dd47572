import { Controller, Get, Param, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { Public, sendPage } from '@app/core';
import { problemCodeOf, problemIndexPage, problemPage, unknownProblemPage } from './problem-pages';

/**
 * The pages the problems' `type` URIs name (`/problems/invalid-state`): public HTML for a
 * developer reading an error, outside /api and its document, served like the account pages.
 */
@ApiExcludeController()
@Public()
@Controller('problems')
export class ProblemPagesController {
  @Get()
  index(@Res() res: Response): void {
    sendPage(res, problemIndexPage());
  }

  @Get(':slug')
  one(@Param('slug') slug: string, @Res() res: Response): void {
    const code = problemCodeOf(slug);
    sendPage(res, code ? problemPage(code) : unknownProblemPage(slug));
  }
}
