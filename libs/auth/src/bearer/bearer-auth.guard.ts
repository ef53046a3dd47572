import { ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthGuard } from '@nestjs/passport';
import type { Request } from 'express';
import { IS_PUBLIC, LOGIN_ROUTE, Principal, Problem, REQUIRED_ROLE, REQUIRED_SCOPE, Role, roleAllows, Scope } from '@app/core';
import { BearerStrategy } from './bearer.strategy';

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

interface RouteAuth {
  controller: Function;
  isPublic: boolean;
  scope: Scope | undefined;
  /** Undefined: by the scope (read: any member; write: member). */
  role: Role | undefined;
  /** About the signed-in person, not the account: no role needed. */
  loginRoute: boolean;
}

/**
 * The one global guard: every route needs a bearer token unless marked @Public(), the scope its
 * method or @RequireScope names, and the role its scope or @RequireRole names (not on a @LoginRoute()).
 *
 * It asks the 'bearer' strategy directly (BearerStrategy.principalFor) rather than through
 * passport.authenticate, which costs a middleware, a strategy clone and a promise chain per
 * request; the strategy stays registered with passport (AuthGuard('bearer') works anywhere) and
 * both paths give the same answers. A route's metadata is read once, not on every request.
 * Nothing about a credential is cached: each request verifies it again, so a revoked key or an
 * ended session is refused on the very next request.
 */
@Injectable()
export class BearerAuthGuard extends AuthGuard('bearer') {
  private readonly routes = new WeakMap<Function, RouteAuth>();

  constructor(
    private readonly reflector: Reflector,
    private readonly strategy: BearerStrategy,
  ) {
    super({ property: 'principal', session: false });
  }

  override async canActivate(context: ExecutionContext): Promise<boolean> {
    const route = this.route(context);
    if (route.isPublic) return true;
    const req = context.switchToHttp().getRequest<Request>();
    const principal = this.handleRequest(null, (await this.strategy.principalFor(req)) ?? false);
    req.principal = principal;
    const needed: Scope = route.scope ?? (READ_METHODS.has(req.method) ? 'read' : 'write');
    if (!principal.scopes.includes(needed)) throw Problem.insufficientScope(needed);
    if (route.loginRoute) return true;
    // The effective right is both: the key's scopes (above) and the member's role on the account.
    if (!principal.role) throw Problem.noAccount();
    const role = route.role ?? (needed === 'read' ? 'read_only' : 'member');
    if (!roleAllows(principal.role, role)) throw Problem.insufficientRole(role);
    return true;
  }

  override handleRequest<T = Principal>(err: unknown, principal: T | false): T {
    if (err) throw err;
    if (!principal) throw Problem.unauthorized('The bearer token is missing, invalid, expired or revoked.');
    return principal;
  }

  private route(context: ExecutionContext): RouteAuth {
    const handler = context.getHandler();
    const controller = context.getClass();
    const known = this.routes.get(handler);
    if (known && known.controller === controller) return known;
    const targets = [handler, controller];
    const route: RouteAuth = {
      controller,
      isPublic: Boolean(this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, targets)),
      scope: this.reflector.getAllAndOverride<Scope | undefined>(REQUIRED_SCOPE, targets),
      role: this.reflector.getAllAndOverride<Role | undefined>(REQUIRED_ROLE, targets),
      loginRoute: Boolean(this.reflector.getAllAndOverride<boolean>(LOGIN_ROUTE, targets)),
    };
    this.routes.set(handler, route);
    return route;
  }
}
