import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
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

  /** In the caller's transaction: revokes every live key of the account and returns them. */
  async revokeAllForAccount(manager: EntityManager, accountId: string): Promise<{ id: string; name: string; prefix: string }[]> {
    const result: unknown = await manager.query(
      `UPDATE api_keys SET revoked_at = now() WHERE account_id = $1 AND revoked_at IS NULL RETURNING id, name, prefix`,
      [accountId],
    );
    // PostgreSQL gives [rows, count] for UPDATE ... RETURNING, some drivers the rows alone.
    const rows = Array.isArray(result) && Array.isArray(result[0]) ? result[0] : result;
    return rows as { id: string; name: string; prefix: string }[];
  }
}
