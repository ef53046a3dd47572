import { ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthGuard } from '@nestjs/passport';
import type { Request } from 'express';
import { IS_PUBLIC, Principal, Problem, REQUIRED_SCOPE, Scope } from '@app/core';

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The one global guard: every route needs a bearer token unless marked @Public(). */
@Injectable()
export class BearerAuthGuard extends AuthGuard('bearer') {
  constructor(private readonly reflector: Reflector) {
    super({ property: 'principal', session: false });
  }

  override async canActivate(context: ExecutionContext): Promise<boolean> {
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, targets)) return true;
    await super.canActivate(context);
    const req = context.switchToHttp().getRequest<Request>();
    const needed: Scope =
      this.reflector.getAllAndOverride<Scope>(REQUIRED_SCOPE, targets) ?? (READ_METHODS.has(req.method) ? 'read' : 'write');
    if (!req.principal!.scopes.includes(needed)) throw Problem.insufficientScope(needed);
    return true;
  }

  override handleRequest<T = Principal>(err: unknown, principal: T | false): T {
    if (err) throw err;
    if (!principal) throw Problem.unauthorized('The bearer token is missing, invalid, expired or revoked.');
    return principal;
  }
}
