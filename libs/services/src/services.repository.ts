import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { PageQuery, poolQuery } from '@app/core';
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

/** Owner-scoped access to services: every read names the account, so another's id is simply not found. */
@Injectable()
export class ServicesRepository {
  constructor(private readonly dataSource: DataSource) {}

  async page(accountId: string, filters: ServiceFilters, page: PageQuery): Promise<{ rows: ServiceRow[]; total: number }> {
    const { text, values } = listServicesQuery(accountId, filters, page);
    const result = await poolQuery<ServiceRow & { total: number }>(this.dataSource, text, values);
    return { rows: result.filter((row) => row.id !== null), total: result[0]?.total ?? 0 };
  }

  async findOneForAccount(accountId: string, id: string, manager: EntityManager = this.dataSource.manager): Promise<ServiceRow | null> {
    const { text, values } = getServiceQuery(accountId, id);
    const rows: ServiceRow[] = await manager.query(text, values);
    return rows[0] ?? null;
  }

  /** What sub-resources decide on (type, status, power state), without a lock. */
  findStateForAccount(manager: EntityManager, accountId: string, id: string): Promise<ServiceState | null> {
    return this.state(manager, accountId, id, '');
  }

  /** The same under SELECT ... FOR UPDATE of the service row: serialises actions, status changes and credential creation per service. */
  lockForAccount(manager: EntityManager, accountId: string, id: string): Promise<ServiceState | null> {
    return this.state(manager, accountId, id, 'FOR UPDATE OF s');
  }

  /** Without an ownership check: for the operator's commands and background work only. */
  async lockById(manager: EntityManager, id: string): Promise<ServiceState | null> {
    const [row]: { account_id: string }[] = await manager.query(`SELECT account_id FROM services WHERE id = $1`, [id]);
    return row ? this.lockForAccount(manager, row.account_id, id) : null;
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
