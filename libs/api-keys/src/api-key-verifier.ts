import { BeforeApplicationShutdown, Injectable } from '@nestjs/common';
import { LastUsedBuffer, Principal } from '@app/core';
import { hashApiKey, isWellFormedApiKey } from './api-key-format';
import { ApiKeysRepository } from './api-keys.repository';

const LAST_USED_GRANULARITY_MS = 60_000;

/**
 * Turns a presented key into a principal: checksum (no query), SHA-256, one lookup on the unique
 * hash index. Revoked and expired keys fail at once: nothing about a key is cached between
 * requests. lastUsedAt is written in batches, off the request path, at most once a minute per key.
 * The lookup runs on every request, so the repository sends it to the driver's pool directly (poolQuery).
 */
@Injectable()
export class ApiKeyVerifier implements BeforeApplicationShutdown {
  private readonly lastUsed = new LastUsedBuffer((ids) => this.keys.touch(ids));

  constructor(private readonly keys: ApiKeysRepository) {}

  async verify(key: string): Promise<Principal | null> {
    if (!isWellFormedApiKey(key)) return null;
    const row = await this.keys.findLiveByHash(hashApiKey(key));
    if (!row) return null;
    if (!row.last_used_at || Date.now() - row.last_used_at.getTime() >= LAST_USED_GRANULARITY_MS) this.lastUsed.add(row.id);
    return { accountId: row.account_id, kind: 'api_key', credentialId: row.id, scopes: row.scopes, expiresAt: row.expires_at };
  }

  flush(): Promise<void> {
    return this.lastUsed.flush();
  }

  beforeApplicationShutdown(): Promise<void> {
    return this.lastUsed.stop();
  }
}
