import { Injectable } from '@nestjs/common';
import { ApiKeysService } from '@app/api-keys';
import { SessionsService } from '@app/auth';
import { CredentialRef, CredentialStatus, LiveCredential, roleAllows } from '@app/core';

/** CredentialStatus over the sessions and API keys areas' own services (one lookup each, with the member's role). */
@Injectable()
export class CredentialStatusAdapter extends CredentialStatus {
  constructor(
    private readonly sessions: SessionsService,
    private readonly apiKeys: ApiKeysService,
  ) {
    super();
  }

  /** Live, and its login still a member of the account with the role the holder needs. */
  async check({ accountId, kind, credentialId, needs = 'read_only' }: CredentialRef): Promise<LiveCredential | null> {
    if (kind === 'access_token') {
      const role = await this.sessions.roleOn(credentialId, accountId);
      return role && roleAllows(role, needs) ? { validUntil: null } : null;
    }
    return this.apiKeys.isLiveWith(accountId, credentialId, needs);
  }
}
