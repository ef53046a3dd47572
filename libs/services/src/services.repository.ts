import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { isoText, PageQuery, poolQuery } from '@app/core';
import type { BillingCycle } from '@app/products';
import type { PowerState, ServiceStatus, ServiceType } from './service.types';
import { getServiceQuery, listServicesQuery, ServiceFilters, ServiceRow } from './services.queries';

/** The parts of a service its sub-resources decide on. */
export interface ServiceState {
  id: string;
  accountId: string;
  name: string;
  type: ServiceType;
  status: ServiceStatus;
  powerState: PowerState | null;
  region: string | null;
  providerRef: string | null;
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

  async page(accountId: string, filters: ServiceFilters, page: PageQuery): Promise<{ rows: ServiceRow[]; total: number }> {
    const { text, values } = listServicesQuery(accountId, filters, page);
    const result = await poolQuery<ServiceRow & { total: number }>(this.dataSource, text, values);
    return { rows: result.filter((row) => row.id !== null), total: result[0]?.total ?? 0 };
  }

  findOneForAccount(accountId: string, id: string): Promise<ServiceRow | null> {
    return this.findOneIn(this.dataSource.manager, accountId, id);
  }

  /** The same inside the caller's transaction (which may have just changed the service). */
  async findOneIn(manager: EntityManager, accountId: string, id: string): Promise<ServiceRow | null> {
    const { text, values } = getServiceQuery(accountId, id);
    const rows: ServiceRow[] = await manager.query(text, values);
    return rows[0] ?? null;
  }

  async existsForAccount(accountId: string, id: string): Promise<boolean> {
    const rows: unknown[] = await this.dataSource.query('SELECT 1 FROM services WHERE id = $1 AND account_id = $2', [id, accountId]);
    return rows.length > 0;
  }

  /** What sub-resources decide on (type, status, power state), without a lock. */
  findStateForAccount(accountId: string, id: string): Promise<ServiceState | null> {
    return this.state(this.dataSource.manager, accountId, id, '');
  }

  /**
   * The same under SELECT ... FOR UPDATE of the service row: serialises actions, status changes and
   * credential creation per service. Read after the lock is held, in a statement of its own: a
   * statement that waited for the lock sees the joined rows (the power state) as they were before
   * the wait, so a stop that finished meanwhile would read as still running.
   */
  async lockForAccount(manager: EntityManager, accountId: string, id: string): Promise<ServiceState | null> {
    const locked: unknown[] = await manager.query('SELECT 1 FROM services WHERE id = $1 AND account_id = $2 FOR UPDATE', [id, accountId]);
    return locked.length ? this.state(manager, accountId, id, '') : null;
  }

  /** Without an ownership check: for the operator's commands and background work only. */
  async lockById(manager: EntityManager, id: string): Promise<ServiceState | null> {
    const [row]: { account_id: string }[] = await manager.query(`SELECT account_id FROM services WHERE id = $1`, [id]);
    return row ? this.lockForAccount(manager, row.account_id, id) : null;
  }

  /** Inserts a batch of services of one product and price; created_at is one microsecond apart unless given. */
  async insertMany(manager: EntityManager, batch: NewServices): Promise<InsertedService[]> {
    return manager.query(
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
    const [row]: { billing_cycle: BillingCycle; created_at: Date; next_due_date: Date | null }[] = await manager.query(
      `SELECT billing_cycle, created_at, next_due_date FROM services WHERE id = $1`,
      [id],
    );
    return { billingCycle: row.billing_cycle, createdAt: row.created_at, nextDueDate: row.next_due_date };
  }

  async setStatus(manager: EntityManager, id: string, status: ServiceStatus, nextDueDate: Date | null): Promise<void> {
    await manager.query(`UPDATE services SET status = $2, next_due_date = $3, updated_at = now() WHERE id = $1`, [id, status, nextDueDate]);
  }

  private async state(manager: EntityManager, accountId: string, id: string, lock: string): Promise<ServiceState | null> {
    const rows: ServiceState[] = await manager.query(
      `SELECT s.id, s.account_id AS "accountId", s.name, s.type, s.status,
              i.power_state AS "powerState", i.region, i.provider_ref AS "providerRef"
         FROM services s LEFT JOIN vps_instances i ON i.service_id = s.id
        WHERE s.id = $1 AND s.account_id = $2 ${lock}`,
      [id, accountId],
    );
    return rows[0] ?? null;
  }
}
