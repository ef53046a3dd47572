import { ArgumentsHost, Catch, ExceptionFilter } from '@nestjs/common';
import type { Request, Response } from 'express';
import { errorPage, ProblemFilter, sendPage } from '@app/core';

const TITLES: Record<number, string> = { 429: 'Too many attempts', 500: 'Something went wrong', 503: 'Try again shortly' };

/**
 * The pages answer errors as pages: a rate limit (with Retry-After), an unavailable database,
 * an unexpected error. The problem is the one ProblemFilter would answer, logged the same way.
 */
@Catch()
export class PageErrorFilter implements ExceptionFilter {
  private readonly problems = new ProblemFilter();

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const res = http.getResponse<Response>();
    const problem = this.problems.toProblem(exception, http.getRequest<Request>());
    if (res.headersSent) {
      res.destroy();
      return;
    }
    const status = problem.getStatus();
    sendPage(res, errorPage(status, TITLES[status] ?? 'This page could not be shown', problem.detail, undefined, problem.headers));
  }
}
