import { BeforeApplicationShutdown, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { poolQuery, Principal, Scope } from '@app/core';
import { hashApiKey, isWellFormedApiKey } from './api-key-format';

interface KeyRow {
  id: string;
  name: string;
  account_id: string;
  scopes: Scope[];
  expires_at: Date | null;
  last_used_at: Date | null;
}

const LAST_USED_GRANULARITY_MS = 60_000;
const FLUSH_INTERVAL_MS = 5_000;
const LOOKUP = `SELECT id, name, account_id, scopes, expires_at, last_used_at FROM api_keys
        WHERE key_hash = $1 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())`;

/**
 * Turns a presented key into a principal: checksum (no query), SHA-256, one lookup on the unique
 * hash index. Revoked and expired keys fail at once: nothing about a key is cached between
 * requests. lastUsedAt is written in batches, off the request path, at most once a minute per key.
 * The lookup runs on every request, so it goes to the driver's pool directly (poolQuery).
 */
@Injectable()
export class ApiKeyVerifier implements BeforeApplicationShutdown {
  private readonly touched = new Set<string>();
  private readonly timer = setInterval(() => void this.flush(), FLUSH_INTERVAL_MS).unref();

  constructor(private readonly dataSource: DataSource) {}

  async verify(key: string): Promise<Principal | null> {
    if (!isWellFormedApiKey(key)) return null;
    const [row] = await poolQuery<KeyRow>(this.dataSource, LOOKUP, [hashApiKey(key)]);
    if (!row) return null;
    if (!row.last_used_at || Date.now() - row.last_used_at.getTime() >= LAST_USED_GRANULARITY_MS) this.touched.add(row.id);
    return { accountId: row.account_id, kind: 'api_key', credentialId: row.id, scopes: row.scopes, expiresAt: row.expires_at, name: row.name };
  }

  async flush(): Promise<void> {
    if (!this.touched.size || !this.dataSource.isInitialized) return;
    const ids = [...this.touched];
    this.touched.clear();
    await this.dataSource
      .query(
        `UPDATE api_keys SET last_used_at = now()
          WHERE id = ANY($1::uuid[]) AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')`,
        [ids],
      )
      .catch(() => ids.forEach((id) => this.touched.add(id)));
  }

  async beforeApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }
}
