import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { isoText, PageQuery, pageOffset, poolQuery, runSql, SqlExecutor, sqlFirst, sqlRows } from '@app/core';
import type { BillingCycle } from '@app/products';
import type { ServiceFilters, ServiceRow, ServiceStatus, ServiceType } from './service.types';

/** Exactly the columns of the services row a ServiceResponse needs (its kind adds its part: ServiceKind.summaries). */
const SERVICE_COLUMNS = `s.id, s.product_id, s.name, s.type, s.status, s.price, s.currency, s.billing_cycle,
       ${isoText('s.next_due_date')} AS next_due_date, ${isoText('s.created_at')} AS created_at`;

/** The parts of a service its kind's sub-resources decide on. */
export interface ServiceState {
  id: string;
  accountId: string;
  name: string;
  type: ServiceType;
  status: ServiceStatus;
}

export interface NewServices {
  ids: string[];
  names: string[];
  accountId: string;
  productId: string;
  type: ServiceType;
  status: ServiceStatus;
  /** A decimal string, as the catalogue gives it. */
  price: string;
  currency: string;
  billingCycle: BillingCycle;
  nextDueDate: Date | null;
  /** Null: the time of insertion. */
  createdAt: Date | null;
}

export interface InsertedService {
  id: string;
  created_at: string;
  next_due_date: string | null;
}

export interface BillingState {
  billingCycle: BillingCycle;
  createdAt: Date;
  nextDueDate: Date | null;
}

/** Owner-scoped access to services: every read names the account, so another's id is simply not found. */
@Injectable()
export class ServicesRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * One page and the total in one round trip. The total is summed from the per-account counters
   * (service_counts), not counted; the page is a deferred join: ids from the covering index
   * (account_id[, status | type], created_at DESC, id DESC) first, then only those rows.
   * A row with a null id carries the total when the page is empty. Static: test/services-index reads its plan.
   */
  static pageStatement(accountId: string, filters: ServiceFilters, page: PageQuery): { text: string; values: unknown[] } {
    const values: unknown[] = [accountId];
    const conditions: string[] = [];
    for (const column of ['type', 'status'] as const) {
      const value = filters[column];
      if (value === undefined) continue;
      values.push(value);
      conditions.push(`AND ${column} = $${values.length}`);
    }
    const where = `account_id = $1 ${conditions.join(' ')}`;
    values.push(page.pageSize, pageOffset(page));
    const limit = `$${values.length - 1}`;
    const offset = `$${values.length}::bigint`;
    const text = `
    WITH total AS (
      SELECT coalesce(sum(n), 0)::int AS total FROM service_counts WHERE ${where}
    ), page AS (
      SELECT id, created_at FROM services WHERE ${where}
       ORDER BY created_at DESC, id DESC LIMIT ${limit} OFFSET ${offset}
    )
    SELECT t.total, ${SERVICE_COLUMNS}
      FROM total t
      LEFT JOIN (page p JOIN services s ON s.id = p.id) ON true
     ORDER BY p.created_at DESC, p.id DESC`;
    return { text, values };
  }

  async page(accountId: string, filters: ServiceFilters, page: PageQuery): Promise<{ rows: ServiceRow[]; total: number }> {
    const { text, values } = ServicesRepository.pageStatement(accountId, filters, page);
    const result = await poolQuery<ServiceRow & { total: number }>(this.dataSource, text, values);
    return { rows: result.filter((row) => row.id !== null), total: result[0]?.total ?? 0 };
  }

  findOneForAccount(accountId: string, id: string): Promise<ServiceRow | null> {
    return this.findOneIn(this.dataSource.manager, accountId, id);
  }

  /** The same inside the caller's transaction (which may have just changed the service). */
  findOneIn(manager: EntityManager, accountId: string, id: string): Promise<ServiceRow | null> {
    return sqlFirst<ServiceRow>(manager, `SELECT ${SERVICE_COLUMNS} FROM services s WHERE s.id = $1 AND s.account_id = $2`, [
      id,
      accountId,
    ]);
  }

  async existsForAccount(accountId: string, id: string): Promise<boolean> {
    return (await sqlFirst(this.dataSource, 'SELECT 1 FROM services WHERE id = $1 AND account_id = $2', [id, accountId])) !== null;
  }

  /** What sub-resources decide on (type, status), without a lock. */
  findStateForAccount(accountId: string, id: string): Promise<ServiceState | null> {
    return this.state(this.dataSource, accountId, id, '');
  }

  /**
   * The same under SELECT ... FOR UPDATE of the service row: serialises actions, status changes and
   * credential creation per service. A kind reads its own rows after this returns, in statements of
   * their own: a statement that waited for the lock sees other rows (a VPS's power state) as they
   * were before the wait, so a stop that finished meanwhile would read as still running.
   */
  lockForAccount(manager: EntityManager, accountId: string, id: string): Promise<ServiceState | null> {
    return this.state(manager, accountId, id, 'FOR UPDATE');
  }

  /** Without an ownership check: for the operator's commands and background work only. */
  async lockById(manager: EntityManager, id: string): Promise<ServiceState | null> {
    const row = await sqlFirst<{ account_id: string }>(manager, `SELECT account_id FROM services WHERE id = $1`, [id]);
    return row ? this.lockForAccount(manager, row.account_id, id) : null;
  }

  /** Inserts a batch of services of one product and price; created_at is one microsecond apart unless given. */
  async insertMany(manager: EntityManager, batch: NewServices): Promise<InsertedService[]> {
    return sqlRows<InsertedService>(
      manager,
      `INSERT INTO services (id, account_id, product_id, name, type, status, price, currency, billing_cycle, next_due_date, created_at)
       SELECT r.id, $3, $4, r.name, $5, $6, $7::numeric, $8, $9, $10::timestamptz, coalesce($11::timestamptz, clock_timestamp())
         FROM unnest($1::uuid[], $2::text[]) WITH ORDINALITY AS r(id, name, n)
        ORDER BY r.n
       RETURNING id, ${isoText('created_at')} AS created_at, ${isoText('next_due_date')} AS next_due_date`,
      [
        batch.ids,
        batch.names,
        batch.accountId,
        batch.productId,
        batch.type,
        batch.status,
        batch.price,
        batch.currency,
        batch.billingCycle,
        batch.nextDueDate,
        batch.createdAt,
      ],
    );
  }

  /** What a status change recomputes the due date from. Unscoped: the caller holds the row lock. */
  async billingOf(manager: EntityManager, id: string): Promise<BillingState> {
    const row = await sqlFirst<{ billing_cycle: BillingCycle; created_at: Date; next_due_date: Date | null }>(
      manager,
      `SELECT billing_cycle, created_at, next_due_date FROM services WHERE id = $1`,
      [id],
    );
    return { billingCycle: row!.billing_cycle, createdAt: row!.created_at, nextDueDate: row!.next_due_date };
  }

  /** The unit price of the service's product, cycle and currency times `quantity`. Unscoped: the caller holds the row lock. */
  async reprice(manager: EntityManager, id: string, quantity: number): Promise<void> {
    await runSql(
      manager,
      `UPDATE services s SET price = p.price * $2
         FROM product_prices p
        WHERE s.id = $1 AND p.product_id = s.product_id AND p.billing_cycle = s.billing_cycle AND p.currency = s.currency`,
      [id, quantity],
    );
  }

  async setStatus(manager: EntityManager, id: string, status: ServiceStatus, nextDueDate: Date | null): Promise<void> {
    await runSql(manager, `UPDATE services SET status = $2, next_due_date = $3, updated_at = now() WHERE id = $1`, [
      id,
      status,
      nextDueDate,
    ]);
  }

  private state(on: SqlExecutor, accountId: string, id: string, lock: '' | 'FOR UPDATE'): Promise<ServiceState | null> {
    return sqlFirst<ServiceState>(
      on,
      `SELECT id, account_id AS "accountId", name, type, status FROM services WHERE id = $1 AND account_id = $2 ${lock}`,
      [id, accountId],
    );
  }
}
