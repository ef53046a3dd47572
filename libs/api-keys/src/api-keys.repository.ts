import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { And, DataSource, EntityManager, IsNull, LessThanOrEqual, MoreThan, Repository } from 'typeorm';
import { pageOfEntities, PageQuery, poolQuery, Role, Scope, sqlRows, touchLastUsed } from '@app/core';
import { ApiKey } from './api-key.entity';

/** A key as the per-request lookup returns it; `live` is false for a revoked or expired key. */
export interface KeyLookupRow {
  id: string;
  name: string;
  account_id: string;
  member_id: string;
  login_id: string;
  email: string;
  role: Role;
  scopes: Scope[];
  expires_at: Date | null;
  last_used_at: Date | null;
  revoked_at: Date | null;
  live: boolean;
}

/** A new key's columns; the secret itself is never stored, only its hash. */
export interface NewApiKeyRow {
  accountId: string;
  memberId: string;
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

  /** The member's live keys on the account, newest first, and their total. */
  pageForMember(accountId: string, memberId: string, query: PageQuery): Promise<[ApiKey[], number]> {
    return pageOfEntities(this.keys, { accountId, memberId, revokedAt: IsNull() }, query);
  }

  findLiveForMember(accountId: string, memberId: string, id: string): Promise<ApiKey | null> {
    return this.keys.findOne({ where: { id, accountId, memberId, revokedAt: IsNull() } });
  }

  /** A live key of the account with its member's role (a console's recheck); null if there is none. */
  async liveWithRole(accountId: string, id: string): Promise<{ expires_at: Date | null; role: Role } | null> {
    const [row] = await sqlRows<{ expires_at: Date | null; role: Role }>(
      this.dataSource,
      `SELECT k.expires_at, m.role FROM api_keys k JOIN account_members m ON m.id = k.member_id
        WHERE k.id = $2 AND k.account_id = $1 AND k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > now())`,
      [accountId, id],
    );
    return row ?? null;
  }

  /** False when the member has no such live key. */
  async revokeForMember(manager: EntityManager, accountId: string, memberId: string, id: string): Promise<boolean> {
    const result = await manager.update(ApiKey, { id, accountId, memberId, revokedAt: IsNull() }, { revokedAt: new Date() });
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
      `SELECT k.id, k.name, k.account_id, k.member_id, m.login_id, l.email, m.role, k.scopes, k.expires_at, k.last_used_at, k.revoked_at,
        k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > now()) AS live
        FROM api_keys k JOIN account_members m ON m.id = k.member_id JOIN accounts l ON l.id = m.login_id
        WHERE k.key_hash = $1`,
      [keyHash],
    );
    return row ?? null;
  }

  /** Sets last_used_at of these keys, at most once a minute each. */
  touch(ids: string[]): Promise<void> {
    return touchLastUsed(this.dataSource, 'api_keys', ids);
  }

  /** In the caller's transaction: revokes every live key of one member and returns them. */
  revokeAllOfMember(manager: EntityManager, memberId: string): Promise<{ id: string; name: string; prefix: string }[]> {
    return sqlRows<{ id: string; name: string; prefix: string }>(
      manager,
      `UPDATE api_keys SET revoked_at = now() WHERE member_id = $1 AND revoked_at IS NULL RETURNING id, name, prefix`,
      [memberId],
    );
  }

  /** In the caller's transaction: revokes every live key of the login, on every account, and returns them. */
  revokeAllOfLogin(manager: EntityManager, loginId: string): Promise<{ id: string; account_id: string; name: string; prefix: string }[]> {
    return sqlRows<{ id: string; account_id: string; name: string; prefix: string }>(
      manager,
      `UPDATE api_keys SET revoked_at = now()
        WHERE member_id IN (SELECT id FROM account_members WHERE login_id = $1) AND revoked_at IS NULL
        RETURNING id, account_id, name, prefix`,
      [loginId],
    );
  }
}
