import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import { FieldError, Problem, PROBLEM_TITLES, ProblemCode, problemTypeUri } from './problem';
import { CONNECTION_WAIT_RAN_OUT, isDatabaseUnavailable, isInvalidInputFromDatabase } from './database-errors';
import { asProblem } from './domain-problems';
import { MAX_JSON_NODES } from '../http/json-body-guard';
import { poolPressure } from '../database/pool-watch';

interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: ProblemCode;
  requestId: string;
  errors?: FieldError[];
}

const CODE_BY_STATUS: Record<number, ProblemCode> = {
  400: 'invalid_input',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  429: 'rate_limited',
  503: 'unavailable',
};

const BODY_PARSER_ERRORS: Record<string, [number, ProblemCode, string]> = {
  'entity.parse.failed': [400, 'invalid_input', 'The request body is not valid JSON.'],
  'entity.too.large': [413, 'payload_too_large', 'The request body is larger than the limit of 1 MiB.'],
  'entity.too.many.values': [400, 'invalid_input', `The JSON body has more than ${MAX_JSON_NODES} values.`],
  'encoding.unsupported': [415, 'unsupported_media_type', 'The request body encoding is not supported.'],
  'charset.unsupported': [415, 'unsupported_media_type', 'The request body charset is not supported.'],
  'request.aborted': [400, 'invalid_input', 'The request body was not received completely.'],
  'stream.encoding.set': [500, 'internal_error', 'The server could not read the request body.'],
};

/** The one place errors become responses: every error is a problem, nothing internal leaks. */
@Catch()
export class ProblemFilter implements ExceptionFilter {
  private readonly logger = new Logger('Errors');

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const req = http.getRequest<Request>();
    const res = http.getResponse<Response>();
    const problem = this.toProblem(exception, req);
    if (res.headersSent) {
      res.destroy();
      return;
    }
    const body: ProblemBody = {
      type: problemTypeUri(problem.code),
      title: PROBLEM_TITLES[problem.getStatus()] ?? 'Error',
      status: problem.getStatus(),
      detail: problem.detail,
      code: problem.code,
      requestId: String(req.id ?? ''),
      ...(problem.errors?.length ? { errors: problem.errors } : {}),
    };
    for (const [name, value] of Object.entries(problem.headers)) res.setHeader(name, value);
    res.status(body.status).type('application/problem+json').send(JSON.stringify(body));
  }

  /** Public for filters that answer in another format (the account pages): one mapping, one log. */
  toProblem(exception: unknown, req: Request): Problem {
    const problem = asProblem(exception);
    if (problem) return problem;
    const parserError = exception as { type?: string; status?: number };
    if (parserError && typeof parserError.type === 'string' && BODY_PARSER_ERRORS[parserError.type]) {
      const [status, code, detail] = BODY_PARSER_ERRORS[parserError.type];
      return new Problem(status, code, detail);
    }
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      if (status === 404) return new Problem(404, 'not_found', `No route for ${req.method} ${req.path}.`);
      const code = CODE_BY_STATUS[status];
      if (status === 503) return Problem.unavailable('A dependency of the service is not available.');
      if (code && status < 500) return new Problem(status, code, this.httpDetail(exception));
    }
    if (isDatabaseUnavailable(exception)) {
      const message = (exception as Error).message;
      const pressure = message?.includes(CONNECTION_WAIT_RAN_OUT) ? ` (${poolPressure()})` : '';
      this.logger.warn(`Database unavailable for request ${String(req.id ?? '-')}: ${message}${pressure}`);
      return Problem.unavailable();
    }
    if (isInvalidInputFromDatabase(exception)) {
      this.logger.warn(
        `Input rejected by the database: ${(exception as { driverError?: Error }).driverError?.message ?? (exception as Error).message}`,
      );
      return Problem.invalidInput('A value in the request is out of range or malformed.');
    }
    this.logger.error(exception instanceof Error ? (exception.stack ?? exception.message) : String(exception));
    return new Problem(500, 'internal_error', 'An unexpected error occurred. Quote the request id when you contact support.');
  }

  private httpDetail(exception: HttpException): string {
    const response = exception.getResponse();
    if (typeof response === 'string') return response;
    const message = (response as { message?: unknown }).message;
    return Array.isArray(message) ? message.join('; ') : String(message ?? exception.message);
  }
}
