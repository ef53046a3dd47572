import { Injectable } from '@nestjs/common';
import { ALL_SCOPES, Principal } from '@app/core';
import { API_KEY_PREFIX, ApiKeyVerifier } from '@app/api-keys';
import { SessionsService } from '../sessions/sessions.service';
import { AccessTokens } from '../tokens/access-tokens';

/** An access token or an API key, told apart by the key prefix; each costs at most one lookup. */
@Injectable()
export class CredentialVerifier {
  constructor(
    private readonly apiKeys: ApiKeyVerifier,
    private readonly accessTokens: AccessTokens,
    private readonly sessions: SessionsService,
  ) {}

  async verify(token: string): Promise<Principal | null> {
    if (token.startsWith(API_KEY_PREFIX)) return this.apiKeys.verify(token);
    const claims = this.accessTokens.read(token);
    if (!claims || !(await this.sessions.isLive(claims.sessionId, claims.accountId))) return null;
    return { accountId: claims.accountId, kind: 'access_token', credentialId: claims.sessionId, scopes: ALL_SCOPES, expiresAt: null };
  }
}
