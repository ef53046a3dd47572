import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { LeaseStore, poolQuery, runSql } from '@app/core';
import { ENDPOINT_COLUMNS, EndpointRow } from '../webhooks.repository';
import { ATTEMPTS_FROM_DONE, attemptsUnnest, Succeeded } from './attempts.repository';
import { DELIVERY_COLUMNS, DeliveryRow } from './deliveries.repository';

/**
 * How long a lease lasts from its last renewal (every claim renews it): longer than an attempt can
 * last (WEBHOOKS_TIMEOUT_SECONDS, at most 15) plus recording it and the claim made meanwhile.
 */
export const LEASE_SECONDS = 30;

/** An endpoint's lease as its holder knows it. */
export interface Lease {
  endpointId: string;
  holder: string;
}

/**
 * The endpoint as read when the lease was renewed, and the deliveries claimed with it, oldest first
 * (none: nothing due). `renewedAt` is when the statement went out: the lease lasts LEASE_SECONDS from
 * a moment after it.
 */
export interface Claim {
  endpoint: EndpointRow;
  deliveries: DeliveryRow[];
  renewedAt: number;
}

/** What a poke found: the lease taken, or held by another holder (null: a process of an older version, whose leases name no holder). */
export type Taken = { leased: true; endpoint: EndpointRow } | { leased: false; holder: string | null; until: Date };

const LEASE = `make_interval(secs => ${LEASE_SECONDS})`;
const due = (d: string) => `${d}.status = 'pending' AND ${d}.next_attempt_at <= now()`;
/** Claimed and never recorded: while nobody holds the lease, the claim of a holder that died (or stalled past its lease). */
const orphaned = (d: string) => `${d}.status = 'pending' AND ${d}.next_attempt_at IS NULL`;
const HELD = `(e.in_flight_until IS NOT NULL AND e.in_flight_until >= now())`;
const endpointColumns = (table: string) => ENDPOINT_COLUMNS.map((c) => `${table}.${c}`).join(', ');
const deliveryColumns = DELIVERY_COLUMNS.split(',').map((c) => c.trim());

/**
 * Claims up to `$limit` of the endpoint's oldest due deliveries when `ep` (the renewed endpoint) came
 * back enabled. The statement commits without waiting for its WAL flush (see
 * docs/decisions/webhooks.md, "Delivery": PostgreSQL's own crash may undo the last of these, and the
 * deliveries are sent again).
 */
const claimDue = (limit: string) => `picked AS (
  SELECT c.id, c.next_attempt_at AS due_at FROM webhook_deliveries c
  WHERE c.endpoint_id = $1 AND ${due('c')} AND EXISTS (SELECT 1 FROM ep WHERE ep.enabled)
  ORDER BY c.next_attempt_at, c.created_at, c.id LIMIT ${limit} FOR UPDATE SKIP LOCKED),
next AS (
  UPDATE webhook_deliveries d SET attempts = d.attempts + 1, last_attempt_at = now(), next_attempt_at = NULL
  FROM picked WHERE d.id = picked.id
  RETURNING ${deliveryColumns.map((c) => `d.${c}`).join(', ')}, picked.due_at)
SELECT ${ENDPOINT_COLUMNS.map((c) => `ep.${c} AS "endpoint.${c}"`).join(', ')},
  ${deliveryColumns.map((c) => `next.${c} AS "delivery.${c}"`).join(', ')}
FROM ep LEFT JOIN next ON true, (SELECT set_config('synchronous_commit', 'off', true)) AS no_flush_wait
ORDER BY next.due_at, next.created_at, next.id`;

/**
 * The single attempt in flight per endpoint: a lease on the endpoint's row,
 * named by its holder, renewed with every claim, and a poke that keeps the holder from letting go
 * while a job it made unnecessary may have seen it busy. Every statement that decides on the lease
 * is an UPDATE of that one row, so they happen one after another.
 */
@Injectable()
export class EndpointLeasesRepository implements LeaseStore<Lease, Taken> {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * A delivery of the endpoint came due: takes the lease for `holder` if it is free and something is
   * due (null when nothing is, or the endpoint is gone), or pokes the holder if it is held (and says
   * whose it is). Not renewed by a timer: every claim renews it. Taking
   * it makes the claims left without an outcome due again, at the same attempt number: that attempt
   * is made again (at-least-once, the same webhook-id).
   */
  async tryTake({ endpointId, holder }: Lease): Promise<Taken | null> {
    const rows = await poolQuery<EndpointRow & { in_flight_holder: string | null; in_flight_until: Date }>(
      this.dataSource,
      `WITH ep AS (
         UPDATE webhook_endpoints e SET in_flight_holder = CASE WHEN ${HELD} THEN e.in_flight_holder ELSE $2::uuid END,
           in_flight_until = CASE WHEN ${HELD} THEN e.in_flight_until ELSE now() + ${LEASE} END,
           in_flight_poked = ${HELD}
         WHERE e.id = $1
           AND (${HELD} OR EXISTS (SELECT 1 FROM webhook_deliveries c WHERE c.endpoint_id = $1 AND (${due('c')} OR ${orphaned('c')})))
         RETURNING ${endpointColumns('e')}, e.in_flight_holder, e.in_flight_until),
       orphans AS (
         UPDATE webhook_deliveries d SET attempts = d.attempts - 1, next_attempt_at = now()
         WHERE d.endpoint_id = $1 AND ${orphaned('d')} AND EXISTS (SELECT 1 FROM ep WHERE ep.in_flight_holder = $2::uuid))
       SELECT * FROM ep`,
      [endpointId, holder],
    );
    const row = rows[0];
    if (!row) return null;
    if (row.in_flight_holder === holder) return { leased: true, endpoint: row };
    return { leased: false, holder: row.in_flight_holder, until: row.in_flight_until };
  }

  /**
   * One statement for the successful attempts made under the lease and what follows them: each
   * delivery succeeded with its attempt in the history, the endpoint's failure streak ended (when
   * there was a success), the lease renewed, and up to `claim` more due deliveries claimed. Null
   * when the lease is no longer the holder's (the successes are recorded all the same).
   */
  async recordAndClaim(lease: Lease, successes: Succeeded[], claim: number): Promise<Claim | null> {
    const renewedAt = Date.now();
    const attempts = attemptsUnnest(3, successes);
    const limit = `$${3 + attempts.values.length}`;
    const rows = await poolQuery<Record<string, unknown>>(
      this.dataSource,
      `WITH done AS (${attempts.sql}),
       outcome AS (
         UPDATE webhook_deliveries d SET status = 'succeeded', last_response_code = done.response_code,
           last_duration_ms = done.duration_ms, last_error = NULL, next_attempt_at = NULL
         FROM done WHERE d.id = done.delivery_id),
       attempt AS (${ATTEMPTS_FROM_DONE}),
       ep AS (${this.renewStatement(`, failing_since = CASE WHEN EXISTS (SELECT 1 FROM done) THEN NULL ELSE failing_since END`)}),
       ${claimDue(`${limit}::int`)}`,
      [lease.endpointId, lease.holder, ...attempts.values, claim],
    );
    return claimOf(rows, renewedAt);
  }

  /**
   * Lets go of the lease, unless a job poked it since the last look: then keeps it (renewed, the
   * poke cleared) and answers false, and the holder looks for due deliveries again. True also
   * when the lease was no longer the holder's.
   */
  async releaseUnlessPoked(lease: Lease): Promise<boolean> {
    const rows = await poolQuery<{ in_flight_holder: string | null }>(
      this.dataSource,
      `UPDATE webhook_endpoints SET in_flight_until = CASE WHEN in_flight_poked THEN now() + ${LEASE} END,
         in_flight_holder = CASE WHEN in_flight_poked THEN in_flight_holder END, in_flight_poked = false
       WHERE id = $1 AND in_flight_holder = $2 RETURNING in_flight_holder`,
      [lease.endpointId, lease.holder],
    );
    return (rows[0]?.in_flight_holder ?? null) === null;
  }

  /** Lets go of the lease whatever is due (shutdown; the session's watchdog job sees to the rest). */
  async release(lease: Lease): Promise<void> {
    await runSql(
      this.dataSource,
      `UPDATE webhook_endpoints SET in_flight_until = NULL, in_flight_holder = NULL, in_flight_poked = false
       WHERE id = $1 AND in_flight_holder = $2`,
      [lease.endpointId, lease.holder],
    );
  }

  /**
   * The due deliveries of a disabled endpoint end without an attempt, and so do those its lease
   * holder claimed and will not send (the caller holds the lease and has recorded every attempt made).
   */
  async failDue(endpointId: string, error: string): Promise<void> {
    await runSql(
      this.dataSource,
      `UPDATE webhook_deliveries d SET status = 'failed', last_error = $2, next_attempt_at = NULL
       WHERE d.endpoint_id = $1 AND (${due('d')} OR ${orphaned('d')})`,
      [endpointId, error],
    );
  }

  private renewStatement(alsoSet: string): string {
    return `UPDATE webhook_endpoints SET in_flight_until = now() + ${LEASE}${alsoSet}
      WHERE id = $1 AND in_flight_holder = $2::uuid RETURNING ${ENDPOINT_COLUMNS.join(', ')}`;
  }
}

function claimOf(rows: Record<string, unknown>[], renewedAt: number): Claim | null {
  if (!rows[0]) return null;
  const endpoint: Record<string, unknown> = {};
  const deliveries: DeliveryRow[] = [];
  for (const row of rows) {
    const delivery: Record<string, unknown> = {};
    for (const [column, value] of Object.entries(row)) {
      if (column.startsWith('endpoint.')) endpoint[column.slice('endpoint.'.length)] = value;
      else delivery[column.slice('delivery.'.length)] = value;
    }
    if (delivery.id) deliveries.push(delivery as unknown as DeliveryRow);
  }
  return { endpoint: endpoint as unknown as EndpointRow, deliveries, renewedAt };
}
