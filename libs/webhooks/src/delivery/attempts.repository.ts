import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { PageQuery, pageOfRows, RowsPage } from '@app/core';
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
    const response = r.response;
    await manager.query(
      `INSERT INTO webhook_delivery_attempts (delivery_id, attempt, result, response_code, duration_ms, error, response_headers,
         response_headers_truncated, response_body, response_body_encoding, response_body_truncated, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8, $9, $10, $11, $12)`,
      [
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
      ],
    );
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
