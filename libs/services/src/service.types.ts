import type { BillingCycle, ProductType } from '@app/products';

export type ServiceType = ProductType;
export const SERVICE_TYPES: readonly ServiceType[] = ['vps', 'object_storage', 'volume'];

/** Billing lifecycle, as in WHMCS. */
export const SERVICE_STATUSES = ['pending', 'active', 'suspended', 'cancelled', 'terminated'] as const;
export type ServiceStatus = (typeof SERVICE_STATUSES)[number];

/** A services row as its response shows it; what its kind adds comes from the kind (ServiceKind.summaries). */
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
}

export interface ServiceFilters {
  type?: ServiceType;
  status?: ServiceStatus;
}
