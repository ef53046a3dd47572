import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { poolQuery, Scope } from '@app/core';

/** A live key as the per-request lookup returns it. */
export interface LiveKeyRow {
  id: string;
  account_id: string;
  scopes: Scope[];
  expires_at: Date | null;
  last_used_at: Date | null;
}

/**
 * The raw statements of API-key authentication; plain CRUD of keys goes through TypeORM's
 * `Repository<ApiKey>` in `ApiKeysService`.
 */
@Injectable()
export class ApiKeysRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** The live key with this hash: runs on every request, so on the driver's pool (poolQuery), on the unique hash index. */
  async findLiveByHash(keyHash: string): Promise<LiveKeyRow | null> {
    const [row] = await poolQuery<LiveKeyRow>(
      this.dataSource,
      `SELECT id, account_id, scopes, expires_at, last_used_at FROM api_keys
        WHERE key_hash = $1 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())`,
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
