import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { PageQuery, pageOfRows, purgeBatchGivingWay, RowsPage, runSql, sqlFirst, sqlRows } from '@app/core';

/** A webhook_deliveries row as the driver returns it. */
export interface DeliveryRow {
  id: string;
  endpoint_id: string;
  message_id: string;
  event_type: string;
  body: string;
  status: 'pending' | 'succeeded' | 'failed';
  attempts: number;
  last_response_code: number | null;
  last_duration_ms: number | null;
  last_error: string | null;
  last_attempt_at: Date | null;
  next_attempt_at: Date | null;
  retry_until: Date;
  created_at: Date;
}
export const DELIVERY_COLUMNS = `id, endpoint_id, message_id, event_type, body, status, attempts, last_response_code, last_duration_ms,
  last_error, last_attempt_at, next_attempt_at, retry_until, created_at`;

/** Deliveries deleted per statement by the retention purge. */
export const PURGE_BATCH = 1000;

export interface AttemptOutcome {
  ok: boolean;
  responseCode: number | null;
  durationMs: number;
  error: string | null;
  /** Seconds until the next attempt; null: no more attempts. */
  retryInSeconds: number | null;
}

@Injectable()
export class DeliveriesRepository {
  constructor(private readonly dataSource: DataSource) {}

  async insert(
    manager: EntityManager,
    d: { endpointId: string; messageId: string; eventType: string; body: string; retryWindowSeconds: number },
  ): Promise<DeliveryRow> {
    const rows = await sqlRows<DeliveryRow>(
      manager,
      `INSERT INTO webhook_deliveries (endpoint_id, message_id, event_type, body, next_attempt_at, retry_until)
       VALUES ($1, $2, $3, $4, now(), now() + make_interval(secs => $5)) RETURNING ${DELIVERY_COLUMNS}`,
      [d.endpointId, d.messageId, d.eventType, d.body, d.retryWindowSeconds],
    );
    return rows[0];
  }

  /** The deliveries of one endpoint (the caller has checked the endpoint is the account's), newest first. */
  page(endpointId: string, query: PageQuery): Promise<RowsPage<DeliveryRow>> {
    return pageOfRows(
      this.dataSource,
      {
        table: 'webhook_deliveries',
        columns: DELIVERY_COLUMNS,
        where: 'endpoint_id = $1',
        params: [endpointId],
        // The total from the trigger-kept counter, not by counting the endpoint's deliveries.
        totalSql: 'SELECT coalesce(sum(n), 0)::int AS total FROM webhook_delivery_counts WHERE endpoint_id = $1',
      },
      query,
    );
  }

  findForEndpoint(endpointId: string, id: string): Promise<DeliveryRow | null> {
    return sqlFirst<DeliveryRow>(this.dataSource, `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE id = $1 AND endpoint_id = $2`, [
      id,
      endpointId,
    ]);
  }

  /** Worker side, unscoped. */
  findById(id: string): Promise<DeliveryRow | null> {
    return sqlFirst<DeliveryRow>(this.dataSource, `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE id = $1`, [id]);
  }

  /** Worker side, unscoped: the endpoint a delivery goes to (for jobs an older version queued, which name only the delivery). */
  async endpointOf(id: string): Promise<string | null> {
    const row = await sqlFirst<{ endpoint_id: string }>(this.dataSource, `SELECT endpoint_id FROM webhook_deliveries WHERE id = $1`, [id]);
    return row?.endpoint_id ?? null;
  }

  /** Pending again, with a fresh retry window, for another series of attempts under the same message id. */
  reopen(manager: EntityManager, endpointId: string, id: string, retryWindowSeconds: number): Promise<DeliveryRow | null> {
    return sqlFirst<DeliveryRow>(
      manager,
      `UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = now(), retry_until = now() + make_interval(secs => $3)
       WHERE id = $1 AND endpoint_id = $2 RETURNING ${DELIVERY_COLUMNS}`,
      [id, endpointId, retryWindowSeconds],
    );
  }

  async recordOutcome(manager: EntityManager, id: string, o: AttemptOutcome): Promise<void> {
    const status = o.ok ? 'succeeded' : o.retryInSeconds === null ? 'failed' : 'pending';
    await runSql(
      manager,
      `UPDATE webhook_deliveries SET status = $2, last_response_code = $3, last_duration_ms = $4, last_error = $5,
         next_attempt_at = CASE WHEN $6::int IS NULL THEN NULL ELSE now() + make_interval(secs => $6::int) END
       WHERE id = $1`,
      [id, status, o.responseCode, o.durationMs, o.error, o.retryInSeconds],
    );
  }

  /**
   * Operator side, every account: one batch of finished deliveries last tried before the cutoff;
   * it gives way to requests (the fan-out) on the endpoints' delivery counters.
   */
  purgeBatch(before: Date): Promise<number> {
    return purgeBatchGivingWay(
      this.dataSource,
      `DELETE FROM webhook_deliveries WHERE id IN (SELECT id FROM webhook_deliveries
         WHERE status <> 'pending' AND coalesce(last_attempt_at, created_at) < $1 LIMIT ${PURGE_BATCH})`,
      [before],
    );
  }
}
