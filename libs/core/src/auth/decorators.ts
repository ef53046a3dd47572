import { createParamDecorator, ExecutionContext, SetMetadata } from '@nestjs/common';
import type { Request } from 'express';
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

/** Where a request comes from, as recorded on a session. */
export interface ClientInfo {
  ip: string | null;
  userAgent: string | null;
}

export const CurrentClient = createParamDecorator((_: unknown, ctx: ExecutionContext): ClientInfo => {
  const req = ctx.switchToHttp().getRequest<Request>();
  const userAgent = req.headers['user-agent'];
  return { ip: req.ip?.slice(0, 64) ?? null, userAgent: typeof userAgent === 'string' ? userAgent.slice(0, 512) : null };
});
