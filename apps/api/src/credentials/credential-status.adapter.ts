import { Injectable } from '@nestjs/common';
import { ApiKeysService } from '@app/api-keys';
import { SessionsService } from '@app/auth';
import { CredentialRef, CredentialStatus, LiveCredential, Problem } from '@app/core';

/** CredentialStatus over the sessions and API keys areas' own services (one lookup each). */
@Injectable()
export class CredentialStatusAdapter extends CredentialStatus {
  constructor(
    private readonly sessions: SessionsService,
    private readonly apiKeys: ApiKeysService,
  ) {
    super();
  }

  async check({ accountId, kind, credentialId }: CredentialRef): Promise<LiveCredential | null> {
    if (kind === 'access_token') return (await this.sessions.isLive(credentialId, accountId)) ? { validUntil: null } : null;
    // A revoked key, or another account's, is a 404 of the owner-scoped lookup.
    const key = await this.apiKeys.get(accountId, credentialId).catch((err: unknown) => {
      if (err instanceof Problem && err.getStatus() === 404) return null;
      throw err;
    });
    if (!key) return null;
    const validUntil = key.expiresAt ? new Date(key.expiresAt) : null;
    return validUntil && validUntil.getTime() <= Date.now() ? null : { validUntil };
  }
}
