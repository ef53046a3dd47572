import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { countRows, PageQuery, pageOfRows, RowsPage, runSql, sqlFirst, sqlRows } from '@app/core';

/** A webhook_endpoints row as the driver returns it. */
export interface EndpointRow {
  id: string;
  account_id: string;
  url: string;
  description: string | null;
  events: string[];
  enabled: boolean;
  secret_sealed: string;
  previous_secret_sealed: string | null;
  previous_secret_expires_at: Date | null;
  failing_since: Date | null;
  created_at: Date;
  updated_at: Date;
}
/** The columns of an EndpointRow, for statements that read an endpoint beside another table. */
export const ENDPOINT_COLUMNS = [
  'id',
  'account_id',
  'url',
  'description',
  'events',
  'enabled',
  'secret_sealed',
  'previous_secret_sealed',
  'previous_secret_expires_at',
  'failing_since',
  'created_at',
  'updated_at',
] as const;
const COLUMNS = ENDPOINT_COLUMNS.join(', ');

export interface NewEndpoint {
  accountId: string;
  url: string;
  description: string | null;
  events: string[];
  secretSealed: string;
}

export interface EndpointChanges {
  url?: string;
  description?: string | null;
  events?: string[];
  enabled?: boolean;
}

/** Webhook endpoints, owner-scoped; the few worker-side methods say they are not. */
@Injectable()
export class WebhooksRepository {
  constructor(private readonly dataSource: DataSource) {}

  countForAccount(manager: EntityManager, accountId: string): Promise<number> {
    return countRows(manager, 'webhook_endpoints', 'account_id = $1', [accountId]);
  }

  async insert(manager: EntityManager, e: NewEndpoint): Promise<EndpointRow> {
    const rows = await sqlRows<EndpointRow>(
      manager,
      `INSERT INTO webhook_endpoints (account_id, url, description, events, secret_sealed)
       VALUES ($1, $2, $3, $4::text[], $5) RETURNING ${COLUMNS}`,
      [e.accountId, e.url, e.description, e.events, e.secretSealed],
    );
    return rows[0];
  }

  page(accountId: string, query: PageQuery): Promise<RowsPage<EndpointRow>> {
    return pageOfRows(
      this.dataSource,
      { table: 'webhook_endpoints', columns: COLUMNS, where: 'account_id = $1', params: [accountId] },
      query,
    );
  }

  findOneForAccount(accountId: string, id: string, manager?: EntityManager): Promise<EndpointRow | null> {
    return sqlFirst<EndpointRow>(
      manager ?? this.dataSource,
      `SELECT ${COLUMNS} FROM webhook_endpoints WHERE id = $1 AND account_id = $2${manager ? ' FOR UPDATE' : ''}`,
      [id, accountId],
    );
  }

  /** One owner-scoped UPDATE of the fields given; enabling again forgets the failure streak. */
  update(manager: EntityManager, accountId: string, id: string, changes: EndpointChanges): Promise<EndpointRow | null> {
    const sets: string[] = [];
    const values: unknown[] = [id, accountId];
    const set = (column: string, value: unknown, cast = '') => {
      values.push(value);
      sets.push(`${column} = $${values.length}${cast}`);
    };
    if (changes.url !== undefined) set('url', changes.url);
    if (changes.description !== undefined) set('description', changes.description);
    if (changes.events !== undefined) set('events', changes.events, '::text[]');
    if (changes.enabled !== undefined) {
      set('enabled', changes.enabled);
      if (changes.enabled) sets.push('failing_since = NULL');
    }
    return sqlFirst<EndpointRow>(
      manager,
      `UPDATE webhook_endpoints SET ${[...sets, 'updated_at = now()'].join(', ')} WHERE id = $1 AND account_id = $2 RETURNING ${COLUMNS}`,
      values,
    );
  }

  delete(manager: EntityManager, accountId: string, id: string): Promise<EndpointRow | null> {
    return sqlFirst<EndpointRow>(manager, `DELETE FROM webhook_endpoints WHERE id = $1 AND account_id = $2 RETURNING ${COLUMNS}`, [
      id,
      accountId,
    ]);
  }

  /** The new secret signs from now on; the one it replaces signs beside it until `overlapSeconds` from now. */
  rotateSecret(manager: EntityManager, accountId: string, id: string, sealed: string, overlapSeconds: number): Promise<EndpointRow | null> {
    return sqlFirst<EndpointRow>(
      manager,
      `UPDATE webhook_endpoints SET previous_secret_sealed = secret_sealed, secret_sealed = $3,
         previous_secret_expires_at = now() + make_interval(secs => $4), updated_at = now()
       WHERE id = $1 AND account_id = $2 RETURNING ${COLUMNS}`,
      [id, accountId, sealed, overlapSeconds],
    );
  }

  /** Disables every enabled endpoint of the account; returns those it disabled. */
  disableAllForAccount(manager: EntityManager, accountId: string): Promise<EndpointRow[]> {
    return sqlRows<EndpointRow>(
      manager,
      `UPDATE webhook_endpoints SET enabled = false, updated_at = now() WHERE account_id = $1 AND enabled RETURNING ${COLUMNS}`,
      [accountId],
    );
  }

  /**
   * The enabled endpoints of the account subscribed to `eventType` (or to everything), by id: the
   * fan-out's inserts then lock the endpoints' delivery counters in key order, as the retention
   * purge's batches do, so the two cannot deadlock.
   */
  async subscribed(manager: EntityManager, accountId: string, eventType: string): Promise<string[]> {
    const rows = await sqlRows<{ id: string }>(
      manager,
      `SELECT id FROM webhook_endpoints WHERE account_id = $1 AND enabled AND ($2 = ANY(events) OR '*' = ANY(events)) ORDER BY id`,
      [accountId, eventType],
    );
    return rows.map((r) => r.id);
  }

  /** Worker side, unscoped: any endpoint by id. */
  findById(id: string): Promise<EndpointRow | null> {
    return sqlFirst<EndpointRow>(this.dataSource, `SELECT ${COLUMNS} FROM webhook_endpoints WHERE id = $1`, [id]);
  }

  /** Starts (or continues) the failure streak; returns the endpoint when the streak is older than `disableAfterSeconds` and it was just disabled. */
  async markFailed(manager: EntityManager, id: string, disableAfterSeconds: number): Promise<EndpointRow | null> {
    await runSql(manager, `UPDATE webhook_endpoints SET failing_since = now() WHERE id = $1 AND failing_since IS NULL`, [id]);
    return sqlFirst<EndpointRow>(
      manager,
      `UPDATE webhook_endpoints SET enabled = false, updated_at = now()
       WHERE id = $1 AND enabled AND failing_since <= now() - make_interval(secs => $2) RETURNING ${COLUMNS}`,
      [id, disableAfterSeconds],
    );
  }
}
