import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

export const IDEMPOTENCY_TTL_HOURS = 24;

export interface StoredResponse {
  requestHash: string;
  completed: boolean;
  status: number | null;
  body: unknown;
  location: string | null;
}

@Injectable()
export class IdempotencyStore {
  constructor(private readonly dataSource: DataSource) {}

  /** Claims the key for this request; returns the earlier record when the key is taken. */
  async claim(accountId: string, key: string, requestHash: string): Promise<StoredResponse | null> {
    await this.dataSource.query(
      `DELETE FROM idempotency_keys WHERE account_id = $1 AND key = $2 AND created_at < now() - interval '${IDEMPOTENCY_TTL_HOURS} hours'`,
      [accountId, key],
    );
    const inserted: unknown[] = await this.dataSource.query(
      `INSERT INTO idempotency_keys (account_id, key, request_hash) VALUES ($1, $2, $3)
       ON CONFLICT (account_id, key) DO NOTHING RETURNING key`,
      [accountId, key, requestHash],
    );
    if (inserted.length) return null;
    const [row] = await this.dataSource.query(
      `SELECT request_hash, completed, response_status, response_body, response_location
         FROM idempotency_keys WHERE account_id = $1 AND key = $2`,
      [accountId, key],
    );
    if (!row) return this.claim(accountId, key, requestHash);
    return {
      requestHash: row.request_hash,
      completed: row.completed,
      status: row.response_status,
      body: row.response_body,
      location: row.response_location,
    };
  }

  async complete(accountId: string, key: string, status: number, body: unknown, location: string | null): Promise<void> {
    await this.dataSource.query(
      `UPDATE idempotency_keys SET completed = true, response_status = $3, response_body = $4::jsonb, response_location = $5
        WHERE account_id = $1 AND key = $2`,
      [accountId, key, status, JSON.stringify(body ?? null), location],
    );
  }

  /** A failed request frees its key: the work was not done, so a retry may do it. */
  async release(accountId: string, key: string): Promise<void> {
    await this.dataSource.query(`DELETE FROM idempotency_keys WHERE account_id = $1 AND key = $2 AND NOT completed`, [accountId, key]);
  }

  async purgeExpired(): Promise<number> {
    const [, count] = await this.dataSource.query(
      `DELETE FROM idempotency_keys WHERE created_at < now() - interval '${IDEMPOTENCY_TTL_HOURS} hours'`,
    );
    return Number(count ?? 0);
  }
}
