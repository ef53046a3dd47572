import { isoText, PageQuery, pageOffset } from '@app/core';
import type { BillingCycle } from '@app/products';
import type { PowerState, ServiceStatus, ServiceType } from './service.types';

/** Exactly the columns a ServiceResponse needs. */
export const SERVICE_COLUMNS = `s.id, s.product_id, s.name, s.type, s.status, s.price, s.currency, s.billing_cycle,
       ${isoText('s.next_due_date')} AS next_due_date, ${isoText('s.created_at')} AS created_at,
       i.power_state, i.region, i.ipv4, i.ipv6, i.ssh_host, i.ssh_port,
       CASE WHEN o.applied_version < o.desired_version THEN 'pending' ELSE o.gateway_state END AS os_state,
       o.used_bytes::float8 AS os_used_bytes, o.used_objects::float8 AS os_objects, o.bucket_count AS os_buckets,
       o.quota_bytes::float8 AS os_quota_bytes, o.quota_objects::float8 AS os_quota_objects, ${isoText('o.usage_updated_at')} AS os_usage_updated_at`;

/** The tables SERVICE_COLUMNS reads, joined to `services s`. */
const SERVICE_JOINS = `LEFT JOIN vps_instances i ON i.service_id = s.id LEFT JOIN object_storage_users o ON o.service_id = s.id`;

export interface ServiceRow {
  id: string;
  product_id: string;
  name: string;
  type: ServiceType;
  status: ServiceStatus;
  /** numeric(12,4) as the driver gives it: a decimal string. */
  price: string;
  currency: string;
  billing_cycle: BillingCycle;
  next_due_date: string | null;
  created_at: string;
  power_state: PowerState | null;
  region: string | null;
  ipv4: string | null;
  ipv6: string | null;
  ssh_host: string | null;
  ssh_port: number | null;
  /** The object storage columns (os_*) are absent for a VPS. */
  os_state?: string | null;
  os_used_bytes?: number | null;
  os_objects?: number | null;
  os_buckets?: number | null;
  os_quota_bytes?: number | null;
  os_quota_objects?: number | null;
  os_usage_updated_at?: string | null;
}

export interface ServiceFilters {
  type?: ServiceType;
  status?: ServiceStatus;
}

export interface SqlQuery {
  text: string;
  values: unknown[];
}

/**
 * One page and the total in one round trip. The total is summed from the per-account counters
 * (service_counts), not counted; the page is a deferred join: ids from the covering index
 * (account_id[, status | type], created_at DESC, id DESC) first, then only those rows.
 * A row with a null id carries the total when the page is empty.
 */
export function listServicesQuery(accountId: string, filters: ServiceFilters, page: PageQuery): SqlQuery {
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
      LEFT JOIN (page p JOIN services s ON s.id = p.id ${SERVICE_JOINS}) ON true
     ORDER BY p.created_at DESC, p.id DESC`;
  return { text, values };
}

export function getServiceQuery(accountId: string, id: string): SqlQuery {
  return {
    text: `SELECT ${SERVICE_COLUMNS} FROM services s ${SERVICE_JOINS} WHERE s.id = $1 AND s.account_id = $2`,
    values: [id, accountId],
  };
}
