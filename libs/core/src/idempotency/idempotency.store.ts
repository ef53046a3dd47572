import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { SecretBox } from '../crypto/secret-box';
import { runSql, sqlCount, sqlFirst } from '../database/statement';

export const IDEMPOTENCY_TTL_HOURS = 24;

export interface StoredResponse {
  requestHash: string;
  /** The API key or session that made the first request; null for replays kept before it was recorded. */
  credentialId: string | null;
  completed: boolean;
  status: number | null;
  body: unknown;
  location: string | null;
}

interface KeyRow {
  request_hash: string;
  credential_id: string | null;
  completed: boolean;
  response_status: number | null;
  response_sealed: string | null;
  response_body: unknown;
  response_location: string | null;
}

/** Responses kept for replay, sealed at rest: a webhook's creation answers with its signing secret. */
@Injectable()
export class IdempotencyStore {
  constructor(
    private readonly dataSource: DataSource,
    private readonly box: SecretBox,
  ) {}

  /** Claims the key for this request; returns the earlier record when the key is taken. */
  async claim(accountId: string, credentialId: string, key: string, requestHash: string): Promise<StoredResponse | null> {
    await runSql(
      this.dataSource,
      `DELETE FROM idempotency_keys WHERE account_id = $1 AND key = $2 AND created_at < now() - interval '${IDEMPOTENCY_TTL_HOURS} hours'`,
      [accountId, key],
    );
    const inserted = await sqlCount(
      this.dataSource,
      `INSERT INTO idempotency_keys (account_id, key, request_hash, credential_id) VALUES ($1, $2, $3, $4)
       ON CONFLICT (account_id, key) DO NOTHING`,
      [accountId, key, requestHash, credentialId],
    );
    if (inserted) return null;
    const row = await sqlFirst<KeyRow>(
      this.dataSource,
      `SELECT request_hash, credential_id, completed, response_status, response_sealed, response_body, response_location
         FROM idempotency_keys WHERE account_id = $1 AND key = $2`,
      [accountId, key],
    );
    if (!row) return this.claim(accountId, credentialId, key, requestHash);
    return {
      requestHash: row.request_hash,
      credentialId: row.credential_id,
      completed: row.completed,
      status: row.response_status,
      body: row.response_sealed === null ? row.response_body : JSON.parse(this.box.open(row.response_sealed)),
      location: row.response_location,
    };
  }

  async complete(accountId: string, key: string, status: number, body: unknown, location: string | null): Promise<void> {
    await runSql(
      this.dataSource,
      `UPDATE idempotency_keys SET completed = true, response_status = $3, response_sealed = $4, response_location = $5
        WHERE account_id = $1 AND key = $2`,
      [accountId, key, status, this.box.seal(JSON.stringify(body ?? null)), location],
    );
  }

  /** A failed request frees its key: the work was not done, so a retry may do it. */
  async release(accountId: string, key: string): Promise<void> {
    await runSql(this.dataSource, `DELETE FROM idempotency_keys WHERE account_id = $1 AND key = $2 AND NOT completed`, [accountId, key]);
  }

  async purgeExpired(): Promise<number> {
    return sqlCount(this.dataSource, `DELETE FROM idempotency_keys WHERE created_at < now() - interval '${IDEMPOTENCY_TTL_HOURS} hours'`);
  }
}
