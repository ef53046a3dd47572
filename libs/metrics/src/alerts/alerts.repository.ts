import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { countRows, PageQuery, pageOfRows, RowsPage, runSql, sqlFirst, sqlRows } from '@app/core';
import type { AlertState, AlertType } from './alert-rules';

/** A metric_alerts row as the driver returns it. */
export interface AlertRow {
  id: string;
  account_id: string;
  service_id: string;
  type: AlertType;
  above: number;
  for_minutes: number;
  state: AlertState;
  state_changed_at: Date;
  created_at: Date;
}
const COLUMNS = 'id, account_id, service_id, type, above, for_minutes, state, state_changed_at, created_at';

export interface NewAlert {
  accountId: string;
  serviceId: string;
  type: AlertType;
  above: number;
  forMinutes: number;
}

/** Metric alerts, owner-scoped; the evaluation's methods (all alerts, by id) say they are not. */
@Injectable()
export class AlertsRepository {
  constructor(private readonly dataSource: DataSource) {}

  countForService(manager: EntityManager, serviceId: string): Promise<number> {
    return countRows(manager, 'metric_alerts', 'service_id = $1', [serviceId]);
  }

  async insert(manager: EntityManager, a: NewAlert): Promise<AlertRow> {
    const rows = await sqlRows<AlertRow>(
      manager,
      `INSERT INTO metric_alerts (account_id, service_id, type, above, for_minutes) VALUES ($1, $2, $3, $4, $5) RETURNING ${COLUMNS}`,
      [a.accountId, a.serviceId, a.type, a.above, a.forMinutes],
    );
    return rows[0];
  }

  page(accountId: string, serviceId: string, query: PageQuery): Promise<RowsPage<AlertRow>> {
    return pageOfRows(
      this.dataSource,
      { table: 'metric_alerts', columns: COLUMNS, where: 'service_id = $1 AND account_id = $2', params: [serviceId, accountId] },
      query,
    );
  }

  /** The deleted alert, or null when the account's VPS has no such alert. */
  deleteForAccount(manager: EntityManager, accountId: string, serviceId: string, id: string): Promise<AlertRow | null> {
    return sqlFirst<AlertRow>(
      manager,
      `DELETE FROM metric_alerts WHERE id = $1 AND service_id = $2 AND account_id = $3 RETURNING ${COLUMNS}`,
      [id, serviceId, accountId],
    );
  }

  /** Every alert, by VPS (the evaluation; not owner-scoped). */
  all(): Promise<AlertRow[]> {
    return sqlRows<AlertRow>(this.dataSource, `SELECT ${COLUMNS} FROM metric_alerts ORDER BY service_id, created_at, id`);
  }

  /** A VPS that is gone takes its alerts with it (not owner-scoped). */
  async deleteForService(serviceId: string): Promise<number> {
    return (await runSql(this.dataSource, `DELETE FROM metric_alerts WHERE service_id = $1`, [serviceId])).count;
  }

  /** `from` -> `to` once: false when the alert is gone or another check changed it first. */
  async changeState(manager: EntityManager, id: string, from: AlertState, to: AlertState): Promise<boolean> {
    const { count } = await runSql(manager, `UPDATE metric_alerts SET state = $3, state_changed_at = now() WHERE id = $1 AND state = $2`, [
      id,
      from,
      to,
    ]);
    return count > 0;
  }
}
