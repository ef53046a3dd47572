import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { PageQuery, pageOfRows, RowsPage, runSql } from '@app/core';
import type { SendResult } from './webhook-sender';

/** A webhook_delivery_attempts row as the driver returns it. */
export interface AttemptRow {
  id: string;
  delivery_id: string;
  attempt: number;
  result: SendResult['result'];
  response_code: number | null;
  duration_ms: number;
  error: string | null;
  response_headers: Record<string, string> | null;
  response_headers_truncated: boolean;
  response_body: string | null;
  response_body_encoding: 'utf8' | 'base64' | null;
  response_body_truncated: boolean;
  created_at: Date;
}
const COLUMNS = `id, delivery_id, attempt, result, response_code, duration_ms, error, response_headers, response_headers_truncated,
  response_body, response_body_encoding, response_body_truncated, created_at`;

@Injectable()
export class AttemptsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** In the transaction that records the delivery's outcome; `startedAt` is when the request went out. */
  async insert(manager: EntityManager, deliveryId: string, attempt: number, startedAt: Date, r: SendResult): Promise<void> {
    const { sql, values } = attemptInsert(1, deliveryId, attempt, startedAt, r);
    await runSql(manager, sql, values);
  }

  /** The attempts of one delivery (the caller has checked it is the account's), newest first. */
  page(deliveryId: string, query: PageQuery): Promise<RowsPage<AttemptRow>> {
    return pageOfRows(
      this.dataSource,
      { table: 'webhook_delivery_attempts', columns: COLUMNS, where: 'delivery_id = $1', params: [deliveryId] },
      query,
    );
  }
}

/**
 * The INSERT of one attempt with its placeholders numbered from `first`: on its own in the outcome's
 * transaction, or as a part of the statement that records a success and claims the next delivery.
 */
export function attemptInsert(
  first: number,
  deliveryId: string,
  attempt: number,
  startedAt: Date,
  r: SendResult,
): { sql: string; values: unknown[] } {
  const response = r.response;
  const values = [
    deliveryId,
    attempt,
    r.result,
    r.responseCode,
    r.durationMs,
    r.error,
    response ? JSON.stringify(response.headers) : null,
    response?.headersTruncated ?? false,
    response?.body ?? null,
    response?.bodyEncoding ?? null,
    response?.bodyTruncated ?? false,
    startedAt,
  ];
  const p = (i: number) => `$${first + i}`;
  return {
    sql: `INSERT INTO webhook_delivery_attempts (delivery_id, attempt, result, response_code, duration_ms, error, response_headers,
         response_headers_truncated, response_body, response_body_encoding, response_body_truncated, created_at)
       VALUES (${values.map((_, i) => (i === 6 ? `${p(i)}::jsonb` : p(i))).join(', ')})`,
    values,
  };
}
