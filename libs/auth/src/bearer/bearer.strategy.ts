import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import type { Request } from 'express';
import { Strategy } from 'passport-http-bearer';
import { Principal } from '@app/core';
import { CredentialVerifier } from './credential-verifier';

const HEADER = /^Bearer ([\x21-\x7e]{1,4096})$/i;

@Injectable()
export class BearerStrategy extends PassportStrategy(Strategy, 'bearer') {
  constructor(private readonly credentials: CredentialVerifier) {
    super({ passReqToCallback: true });
  }

  /** Only the Authorization header counts: tokens in query strings or bodies end up in logs. */
  async validate(req: Request, token: string): Promise<Principal | false> {
    const match = HEADER.exec(req.headers.authorization ?? '');
    if (!match || match[1] !== token) return false;
    return (await this.credentials.verify(token)) ?? false;
  }
}
