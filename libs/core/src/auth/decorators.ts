import { createParamDecorator, ExecutionContext, SetMetadata } from '@nestjs/common';
import type { Request } from 'express';
import { RequestFacts, requestFactsOf } from '../http/request-facts';
import { Principal, Scope } from './principal';

export const IS_PUBLIC = 'auth:public';
export const REQUIRED_SCOPE = 'auth:scope';
export const ACCESS_TOKEN_ONLY = 'auth:access-token-only';

/** Opens a route to callers without a bearer token (register, login, refresh, docs, health). */
export const Public = () => SetMetadata(IS_PUBLIC, true);

/**
 * The scope an API key needs. By default GET and HEAD need `read` and everything else `write`;
 * a GET that hands out access (console, storage credentials) declares `write`.
 */
export const RequireScope = (scope: Scope) => SetMetadata(REQUIRED_SCOPE, scope);

export const CurrentPrincipal = createParamDecorator((_: unknown, ctx: ExecutionContext): Principal => {
  const principal = ctx.switchToHttp().getRequest<Request>().principal;
  if (!principal) throw new Error('CurrentPrincipal used on a public route');
  return principal;
});

/** The request's facts (ip, user agent, request id), for public routes that record activity. */
export const CurrentClient = createParamDecorator((_: unknown, ctx: ExecutionContext): RequestFacts =>
  requestFactsOf(ctx.switchToHttp().getRequest<Request>()),
);
