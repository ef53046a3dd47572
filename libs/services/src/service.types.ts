import type { BillingCycle, ProductType } from '@app/products';

export type ServiceType = ProductType;
export const SERVICE_TYPES: readonly ServiceType[] = ['vps', 'object_storage'];

/** Billing lifecycle, as in WHMCS. */
export const SERVICE_STATUSES = ['pending', 'active', 'suspended', 'cancelled', 'terminated'] as const;
export type ServiceStatus = (typeof SERVICE_STATUSES)[number];

/** What the database records: `provisioning`: its machine is being made; `error`: provisioning failed for good, or the machine vanished (issue 32). */
export const POWER_STATES = ['running', 'stopped', 'starting', 'stopping', 'provisioning', 'error'] as const;
export type PowerState = (typeof POWER_STATES)[number];

/** What customers see (DESIGN.md's four): a machine being made is `starting`, one that could not be made or vanished is `stopped`. */
export const PUBLIC_POWER_STATES = ['running', 'stopped', 'starting', 'stopping'] as const;
export type PublicPowerState = (typeof PUBLIC_POWER_STATES)[number];

export function publicPowerState(state: PowerState): PublicPowerState {
  if (state === 'provisioning') return 'starting';
  return state === 'error' ? 'stopped' : state;
}

export const ACTION_TYPES = ['start', 'stop', 'reboot', 'rebuild'] as const;
export type ActionType = (typeof ACTION_TYPES)[number];

export const ACTION_STATUSES = ['running', 'succeeded', 'failed'] as const;
export type ActionStatus = (typeof ACTION_STATUSES)[number];

export const VPS_REGIONS = ['eu-central', 'eu-west', 'us-east'] as const;

/** A service as its response shows it: the services row with its instance's or object storage's columns. */
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
