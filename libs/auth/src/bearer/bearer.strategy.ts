import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import type { Request } from 'express';
import { Strategy } from 'passport-http-bearer';
import { Principal, requestFactsOf } from '@app/core';
import { CredentialVerifier } from './credential-verifier';

const HEADER = /^Bearer ([\x21-\x7e]{1,4096})$/i;

/** passport-http-bearer refuses a request that also carries a token in its body or query string. */
const carriesToken = (source: unknown): boolean => Boolean(source && (source as { access_token?: unknown }).access_token);

@Injectable()
export class BearerStrategy extends PassportStrategy(Strategy, 'bearer') {
  constructor(private readonly credentials: CredentialVerifier) {
    super({ passReqToCallback: true });
  }

  /** Only the Authorization header counts: tokens in query strings or bodies end up in logs. */
  async validate(req: Request, token: string): Promise<Principal | false> {
    const match = HEADER.exec(req.headers.authorization ?? '');
    if (!match || match[1] !== token) return false;
    return (await this.credentials.verify(token, requestFactsOf(req))) ?? false;
  }

  /**
   * What passport-http-bearer and validate() decide together, without passport's per-request
   * machinery (a middleware, a strategy object and a promise chain built for every request): a
   * principal only for `Authorization: Bearer <token>` with no access_token in the body or query
   * string, and only if the credential verifies. Errors (database down) propagate as they do
   * through passport. bearer.strategy.spec.ts holds both paths to the same answers.
   */
  async principalFor(req: Request): Promise<Principal | null> {
    const match = HEADER.exec(req.headers.authorization ?? '');
    if (!match || carriesToken(req.body) || carriesToken(req.query)) return null;
    return this.credentials.verify(match[1], requestFactsOf(req));
  }
}
