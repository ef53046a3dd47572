import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { runSql, sqlFirst } from '@app/core';

export type AccountTokenPurpose = 'verify_email' | 'change_email' | 'reset_password';

export interface ConsumedToken {
  account_id: string;
  purpose: AccountTokenPurpose;
  email: string;
}

/** Single-use mailed tokens, stored as SHA-256 hashes. */
@Injectable()
export class AccountTokensRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** A live token of one of these purposes, left unused: a page that shows a mailed link's form reads it, never spends it. */
  findLive(tokenHash: string, purposes: AccountTokenPurpose[]): Promise<ConsumedToken | null> {
    return sqlFirst<ConsumedToken>(
      this.dataSource,
      `SELECT account_id, purpose, email FROM account_tokens
        WHERE token_hash = $1 AND purpose = ANY($2::text[]) AND used_at IS NULL AND expires_at > now()`,
      [tokenHash, purposes],
    );
  }

  async create(
    m: EntityManager,
    accountId: string,
    purpose: AccountTokenPurpose,
    email: string,
    tokenHash: string,
    ttlSeconds: number,
  ): Promise<void> {
    await runSql(
      m,
      `INSERT INTO account_tokens (account_id, purpose, email, token_hash, expires_at)
       VALUES ($1, $2, $3, $4, now() + make_interval(secs => $5))`,
      [accountId, purpose, email, tokenHash, ttlSeconds],
    );
  }

  /** Marks a live token of one of these purposes used and returns it; null if unknown, spent or expired. */
  consume(m: EntityManager, tokenHash: string, purposes: AccountTokenPurpose[]): Promise<ConsumedToken | null> {
    return sqlFirst<ConsumedToken>(
      m,
      `UPDATE account_tokens SET used_at = now()
        WHERE token_hash = $1 AND purpose = ANY($2::text[]) AND used_at IS NULL AND expires_at > now()
        RETURNING account_id, purpose, email`,
      [tokenHash, purposes],
    );
  }

  /** Earlier unused tokens of a purpose stop working when a new one is sent or one is used. */
  async retire(m: EntityManager, accountId: string, purpose: AccountTokenPurpose): Promise<void> {
    await runSql(m, 'UPDATE account_tokens SET used_at = now() WHERE account_id = $1 AND purpose = $2 AND used_at IS NULL', [
      accountId,
      purpose,
    ]);
  }

  /**
   * Every unused token of the account, whatever its purpose: a password change or reset, and a
   * confirmed email change, end the links mailed under the old credential or address.
   */
  async retireAll(m: EntityManager, accountId: string): Promise<void> {
    await runSql(m, 'UPDATE account_tokens SET used_at = now() WHERE account_id = $1 AND used_at IS NULL', [accountId]);
  }
}
