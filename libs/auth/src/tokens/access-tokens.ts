import { Injectable } from '@nestjs/common';
import { sign, verify } from 'jsonwebtoken';
import { AppConfig } from '@app/core';

const ISSUER = 'hosting-account-api';

export interface AccessClaims {
  /** The signed-in login (`sub`). */
  loginId: string;
  /** The account the token acts on (`acc`; a token made before teams acts on its login's own account). */
  accountId: string;
  sessionId: string;
}

/** HS256 JWTs carrying the login, the account and the session ids; the session is checked on every request. */
@Injectable()
export class AccessTokens {
  constructor(private readonly config: AppConfig) {}

  issue(claims: AccessClaims): string {
    return sign({ sid: claims.sessionId, acc: claims.accountId, typ: 'access' }, this.config.jwtSecret, {
      algorithm: 'HS256',
      subject: claims.loginId,
      issuer: ISSUER,
      expiresIn: this.config.accessTokenTtlSeconds,
    });
  }

  /** The claims of a valid, unexpired token; null for anything else. */
  read(token: string): AccessClaims | null {
    try {
      const payload = verify(token, this.config.jwtSecret, { algorithms: ['HS256'], issuer: ISSUER });
      if (typeof payload === 'string' || payload.typ !== 'access' || !payload.sub || typeof payload.sid !== 'string') return null;
      // jsonwebtoken accepts a token without exp as never expiring; ours always carry one.
      if (typeof payload.exp !== 'number') return null;
      if (payload.acc !== undefined && typeof payload.acc !== 'string') return null;
      return { loginId: payload.sub, accountId: (payload.acc as string | undefined) ?? payload.sub, sessionId: payload.sid };
    } catch {
      return null;
    }
  }
}
