import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { poolQuery, Scope } from '@app/core';

/** A key as the per-request lookup returns it; `live` is false for a revoked or expired key. */
export interface KeyLookupRow {
  id: string;
  name: string;
  account_id: string;
  scopes: Scope[];
  expires_at: Date | null;
  last_used_at: Date | null;
  revoked_at: Date | null;
  live: boolean;
}

/**
 * The raw statements of API-key authentication; plain CRUD of keys goes through TypeORM's
 * `Repository<ApiKey>` in `ApiKeysService`.
 */
@Injectable()
export class ApiKeysRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * The key with this hash: runs on every request, so on the driver's pool (poolQuery), on the
   * unique hash index. Revoked and expired keys are found too (still one row), to record the refusal.
   */
  async findByHash(keyHash: string): Promise<KeyLookupRow | null> {
    const [row] = await poolQuery<KeyLookupRow>(
      this.dataSource,
      `SELECT id, name, account_id, scopes, expires_at, last_used_at, revoked_at,
        revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now()) AS live
        FROM api_keys WHERE key_hash = $1`,
      [keyHash],
    );
    return row ?? null;
  }

  /** Sets last_used_at of these keys, at most once a minute each. */
  async touch(ids: string[]): Promise<void> {
    await this.dataSource.query(
      `UPDATE api_keys SET last_used_at = now()
        WHERE id = ANY($1::uuid[]) AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')`,
      [ids],
    );
  }
}
