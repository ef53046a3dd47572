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
    const { sql, values } = attemptsUnnest(1, [{ deliveryId, attempt, startedAt, result: r }]);
    await runSql(manager, `WITH done AS (${sql}) ${ATTEMPTS_FROM_DONE}`, values);
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

/** An attempt made: to which delivery, its number, when the request went out, and what came of it. */
export interface Succeeded {
  deliveryId: string;
  attempt: number;
  startedAt: Date;
  result: SendResult;
}

const UNNESTED = [
  ['delivery_id', 'uuid'],
  ['attempt', 'int'],
  ['result', 'text'],
  ['response_code', 'int'],
  ['duration_ms', 'int'],
  ['error', 'text'],
  ['response_headers', 'text'],
  ['response_headers_truncated', 'boolean'],
  ['response_body', 'text'],
  ['response_body_encoding', 'text'],
  ['response_body_truncated', 'boolean'],
  ['created_at', 'timestamptz'],
] as const;

/**
 * The attempts as rows named `done`'s columns, one array parameter per column numbered from `first`:
 * any number of attempts in one statement (on its own in a failure's transaction, or with the
 * successes and the next claim in the lease holder's statement).
 */
export function attemptsUnnest(first: number, attempts: Succeeded[]): { sql: string; values: unknown[] } {
  const columns: unknown[][] = UNNESTED.map(() => []);
  for (const { deliveryId, attempt, startedAt, result: r } of attempts) {
    const response = r.response;
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
      startedAt.toISOString(),
    ].forEach((value, i) => columns[i].push(value));
  }
  const params = UNNESTED.map(([, type], i) => `$${first + i}::${type}[]`).join(', ');
  return {
    sql: `SELECT * FROM unnest(${params}) AS t(${UNNESTED.map(([name]) => name).join(', ')})`,
    values: columns,
  };
}

/** Inserts the rows of `done` (see attemptsUnnest) into the history. */
export const ATTEMPTS_FROM_DONE = `INSERT INTO webhook_delivery_attempts (${UNNESTED.map(([name]) => name).join(', ')})
  SELECT ${UNNESTED.map(([name]) => (name === 'response_headers' ? 'response_headers::jsonb' : name)).join(', ')} FROM done`;
