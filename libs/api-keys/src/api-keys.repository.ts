import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { And, DataSource, EntityManager, IsNull, LessThanOrEqual, MoreThan, Repository } from 'typeorm';
import { pageOfEntities, PageQuery, poolQuery, Scope, sqlRows, touchLastUsed } from '@app/core';
import { ApiKey } from './api-key.entity';

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

/** A new key's columns; the secret itself is never stored, only its hash. */
export interface NewApiKeyRow {
  accountId: string;
  name: string;
  prefix: string;
  keyHash: string;
  scopes: Scope[];
  expiresAt: Date | null;
}

/** Every statement on api_keys: plain CRUD through TypeORM's `Repository<ApiKey>`, the per-request lookup raw. */
@Injectable()
export class ApiKeysRepository {
  constructor(
    private readonly dataSource: DataSource,
    @InjectRepository(ApiKey) private readonly keys: Repository<ApiKey>,
  ) {}

  countLiveForAccount(manager: EntityManager, accountId: string): Promise<number> {
    return manager.count(ApiKey, { where: { accountId, revokedAt: IsNull() } });
  }

  insert(manager: EntityManager, key: NewApiKeyRow): Promise<ApiKey> {
    return manager.save(manager.create(ApiKey, { ...key, lastUsedAt: null, revokedAt: null }));
  }

  /** The account's live keys, newest first, and their total. */
  pageForAccount(accountId: string, query: PageQuery): Promise<[ApiKey[], number]> {
    return pageOfEntities(this.keys, { accountId, revokedAt: IsNull() }, query);
  }

  findLiveForAccount(accountId: string, id: string): Promise<ApiKey | null> {
    return this.keys.findOne({ where: { id, accountId, revokedAt: IsNull() } });
  }

  /** False when the account has no such live key. */
  async revokeForAccount(manager: EntityManager, accountId: string, id: string): Promise<boolean> {
    const result = await manager.update(ApiKey, { id, accountId, revokedAt: IsNull() }, { revokedAt: new Date() });
    return !!result.affected;
  }

  /** Unscoped (the expiry scan): live keys whose expiry falls in (after, until]. */
  findExpiringBetween(after: Date, until: Date): Promise<ApiKey[]> {
    return this.keys.find({ where: { revokedAt: IsNull(), expiresAt: And(MoreThan(after), LessThanOrEqual(until)) } });
  }

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
  touch(ids: string[]): Promise<void> {
    return touchLastUsed(this.dataSource, 'api_keys', ids);
  }

  /** In the caller's transaction: revokes every live key of the account and returns them. */
  revokeAllForAccount(manager: EntityManager, accountId: string): Promise<{ id: string; name: string; prefix: string }[]> {
    return sqlRows<{ id: string; name: string; prefix: string }>(
      manager,
      `UPDATE api_keys SET revoked_at = now() WHERE account_id = $1 AND revoked_at IS NULL RETURNING id, name, prefix`,
      [accountId],
    );
  }
}
