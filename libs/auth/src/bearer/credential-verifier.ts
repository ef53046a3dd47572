import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { ALL_SCOPES, Principal, RequestFacts } from '@app/core';
import { API_KEY_PREFIX, ApiKeyVerifier } from '@app/api-keys';
import { SessionsService } from '../sessions/sessions.service';
import { AccessClaims, AccessTokens } from '../tokens/access-tokens';
import { VerifiedCredential, VerifiedCredentials } from './verified-credentials';

/** lastUsedAt is kept to the minute. */
const USED_GRANULARITY_MS = 60_000;
/** Verified access tokens remembered (by SHA-256, never the token itself): at most this many. */
const MAX_REMEMBERED_TOKENS = 10_000;

interface RememberedToken {
  claims: AccessClaims;
  /** The token's own `exp`, in seconds. */
  exp: number;
}

/**
 * An access token or an API key, told apart by the key prefix; each costs at most one lookup, and
 * none while this process remembers it verified (VerifiedCredentials: on PostgreSQL, dropped by
 * the database's change notice, so a revoked key or an ended session is refused on the very next
 * request on every replica).
 *
 * An access token's signature and claims are a pure function of the token, so a token that
 * verified once is remembered until its own expiry (checking an HS256 signature through
 * jsonwebtoken costs far more than the rest of the request).
 */
@Injectable()
export class CredentialVerifier {
  private readonly remembered = new Map<string, RememberedToken>();

  constructor(
    private readonly apiKeys: ApiKeyVerifier,
    private readonly accessTokens: AccessTokens,
    private readonly sessions: SessionsService,
    private readonly verified: VerifiedCredentials,
  ) {}

  /** The principal carries the request's facts, for the activity entries its request records. */
  async verify(token: string, request?: RequestFacts): Promise<Principal | null> {
    const id = createHash('sha256').update(token).digest('base64');
    const known = await this.verified.recall(id);
    if (known) {
      this.used(known);
      return { ...known.principal, request };
    }
    const epoch = this.verified.epoch;
    const verified = await this.lookUp(id, token, request);
    if (verified) this.verified.remember(id, verified.principal, verified.until, epoch);
    return verified?.principal ?? null;
  }

  private async lookUp(id: string, token: string, request?: RequestFacts): Promise<{ principal: Principal; until: Date | null } | null> {
    if (token.startsWith(API_KEY_PREFIX)) {
      const principal = await this.apiKeys.verify(token, request);
      return principal && { principal, until: principal.expiresAt };
    }
    const claims = this.readAccessToken(id, token);
    const grant = claims && (await this.sessions.liveGrant(claims.sessionId, claims.loginId, claims.accountId));
    if (!claims || !grant) return null;
    const exp = this.remembered.get(id)?.exp;
    const until = exp === undefined ? grant.expires_at : new Date(Math.min(grant.expires_at.getTime(), exp * 1000));
    return {
      principal: {
        accountId: claims.accountId,
        loginId: claims.loginId,
        email: grant.email,
        memberId: grant.member_id,
        role: grant.role,
        kind: 'access_token',
        credentialId: claims.sessionId,
        scopes: ALL_SCOPES,
        expiresAt: null,
        request,
      },
      until,
    };
  }

  /** lastUsedAt of a remembered credential, passed on at most once a minute. */
  private used(known: VerifiedCredential): void {
    if (Date.now() - known.usedAt < USED_GRANULARITY_MS) return;
    known.usedAt = Date.now();
    const { kind, credentialId } = known.principal;
    if (kind === 'api_key') this.apiKeys.used(credentialId);
    else this.sessions.used(credentialId);
  }

  /** When a verified credential stops working by itself: an access token's exp, an API key's expiry. */
  validUntil(token: string, principal: Principal): Date | null {
    if (principal.kind === 'api_key') return principal.expiresAt;
    const exp = expiryOf(token);
    return exp === null ? null : new Date(exp * 1000);
  }

  private readAccessToken(id: string, token: string): AccessClaims | null {
    const known = this.remembered.get(id);
    // jsonwebtoken refuses a token once the current second reaches its exp: the same rule here.
    if (known && Math.floor(Date.now() / 1000) < known.exp) return known.claims;
    if (known) this.remembered.delete(id);
    const claims = this.accessTokens.read(token);
    if (!claims) return null;
    const exp = expiryOf(token);
    if (exp !== null) {
      // Full: forget the oldest (a Map iterates in insertion order; tokens share one lifetime).
      if (this.remembered.size >= MAX_REMEMBERED_TOKENS) this.remembered.delete(this.remembered.keys().next().value!);
      this.remembered.set(id, { claims, exp });
    }
    return claims;
  }
}

/** The `exp` claim of a token whose signature has just been verified; null if it has none. */
function expiryOf(token: string): number | null {
  try {
    const payload = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString('utf8')) as { exp?: unknown };
    return typeof payload.exp === 'number' ? payload.exp : null;
  } catch {
    return null;
  }
}
