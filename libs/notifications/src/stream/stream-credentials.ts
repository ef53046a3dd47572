import { Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { CredentialVerifier } from '@app/auth';
import type { Principal } from '@app/core';
import { StreamCredential } from './stream-credential';

const BEARER = /^Bearer (\S+)$/i;

/** Binds a stream to the bearer it was opened with, so the stream can verify it again later. */
@Injectable()
export class StreamCredentials {
  constructor(private readonly verifier: CredentialVerifier) {}

  of(principal: Principal, req: Request): StreamCredential {
    // The guard accepted this header a moment ago; the token stays in memory, never in a log.
    const token = BEARER.exec(req.headers.authorization ?? '')?.[1] ?? '';
    return {
      principal,
      key: token,
      validUntil: this.verifier.validUntil(token, principal),
      stillValid: async () => {
        const now = await this.verifier.verify(token);
        return now !== null && now.credentialId === principal.credentialId && now.role !== null;
      },
    };
  }
}
