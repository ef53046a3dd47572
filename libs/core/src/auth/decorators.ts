import { applyDecorators, createParamDecorator, ExecutionContext, SetMetadata } from '@nestjs/common';
import { ApiExtension } from '@nestjs/swagger';
import type { Request } from 'express';
import { RequestFacts, requestFactsOf } from '../http/request-facts';
import { Principal, Role, Scope } from './principal';

export const IS_PUBLIC = 'auth:public';
export const REQUIRED_SCOPE = 'auth:scope';
export const ACCESS_TOKEN_ONLY = 'auth:access-token-only';
export const REQUIRED_ROLE = 'auth:role';
export const LOGIN_ROUTE = 'auth:login-route';

/** Opens a route to callers without a bearer token (register, login, refresh, docs, health). */
export const Public = () => SetMetadata(IS_PUBLIC, true);

/**
 * The scope an API key needs. By default GET and HEAD need `read` and everything else `write`;
 * a GET that hands out access (console, storage credentials) declares `write`.
 */
export const RequireScope = (scope: Scope) => SetMetadata(REQUIRED_SCOPE, scope);

/**
 * The least role a route needs. By default a route that needs the `read` scope is open to every
 * member (`read_only`) and one that needs `write` to `member`; account administration declares more.
 */
export const RequireRole = (role: Role) => applyDecorators(SetMetadata(REQUIRED_ROLE, role), ApiExtension('x-required-role', role));

/**
 * A route about the signed-in person, not the account (their profile, password, sessions, second
 * factor, accounts): no role is needed, and it works for a login that belongs to no account.
 */
export const LoginRoute = () => applyDecorators(SetMetadata(LOGIN_ROUTE, true), ApiExtension('x-login-route', true));

export const CurrentPrincipal = createParamDecorator((_: unknown, ctx: ExecutionContext): Principal => {
  const principal = ctx.switchToHttp().getRequest<Request>().principal;
  if (!principal) throw new Error('CurrentPrincipal used on a public route');
  return principal;
});

/** The request's facts (ip, user agent, request id), for public routes that record activity. */
export const CurrentClient = createParamDecorator((_: unknown, ctx: ExecutionContext): RequestFacts =>
  requestFactsOf(ctx.switchToHttp().getRequest<Request>()),
);
