import { BeforeApplicationShutdown, Injectable, Logger } from '@nestjs/common';
import { ActivityLog, ActivityThrottle, LastUsedBuffer, Principal, RequestFacts, TransactionRunner } from '@app/core';
import { hashApiKey, isWellFormedApiKey } from './api-key-format';
import { ApiKeysRepository, KeyLookupRow } from './api-keys.repository';

const LAST_USED_GRANULARITY_MS = 60_000;
/** Refused keys recorded in the activity log at most once per key per minute (per process). */
const REFUSED_ENTRIES_PER_MINUTE = 1;

/**
 * Turns a presented key into a principal: checksum (no query), SHA-256, one lookup on the unique
 * hash index (the bearer guard's CredentialVerifier remembers what verified, until a change notice).
 * lastUsedAt is written in batches, off the request path, at most once a minute per key.
 * The lookup runs on every request, so the repository sends it to the driver's pool directly (poolQuery).
 */
@Injectable()
export class ApiKeyVerifier implements BeforeApplicationShutdown {
  private readonly lastUsed = new LastUsedBuffer((ids) => this.keys.touch(ids));
  private readonly logger = new Logger('Activity');

  constructor(
    private readonly keys: ApiKeysRepository,
    private readonly activity: ActivityLog,
    private readonly throttle: ActivityThrottle,
    private readonly tx: TransactionRunner,
  ) {}

  async verify(key: string, request?: RequestFacts): Promise<Principal | null> {
    if (!isWellFormedApiKey(key)) return null;
    const row = await this.keys.findByHash(hashApiKey(key));
    if (!row) return null;
    if (!row.live) {
      await this.recordRefusal(row, request);
      return null;
    }
    if (!row.last_used_at || Date.now() - row.last_used_at.getTime() >= LAST_USED_GRANULARITY_MS) this.lastUsed.add(row.id);
    return {
      accountId: row.account_id,
      loginId: row.login_id,
      email: row.email,
      memberId: row.member_id,
      role: row.role,
      kind: 'api_key',
      credentialId: row.id,
      scopes: row.scopes,
      expiresAt: row.expires_at,
      name: row.name,
      request,
    };
  }

  /** A key verified earlier (remembered by the caller) served a request: lastUsedAt follows, off the request path. */
  used(keyId: string): void {
    this.lastUsed.add(keyId);
  }

  flush(): Promise<void> {
    return this.lastUsed.flush();
  }

  beforeApplicationShutdown(): Promise<void> {
    return this.lastUsed.stop();
  }

  /** A revoked or expired key was presented: recorded against its account, cheaply and boundedly. */
  private async recordRefusal(row: KeyLookupRow, request: RequestFacts | undefined): Promise<void> {
    if (!this.throttle.allow(`api_key.refused:${row.id}`, REFUSED_ENTRIES_PER_MINUTE)) return;
    try {
      await this.tx.run((m) =>
        this.activity.record(m, {
          accountId: row.account_id,
          action: 'api_key.refused',
          entity: { type: 'api_key', id: row.id },
          status: 'failed',
          actor: { type: 'api_key', id: row.id, name: row.name, memberId: row.member_id, email: row.email, keyId: row.id },
          request,
          details: { reason: row.revoked_at ? 'revoked' : 'expired' },
        }),
      );
    } catch (err) {
      // The request is refused with 401 either way.
      this.logger.warn(`Refused API key not recorded: ${(err as Error).message}`);
    }
  }
}
