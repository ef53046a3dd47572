import type { ProductType } from '@app/products';

export type ServiceType = ProductType;
export const SERVICE_TYPES: readonly ServiceType[] = ['vps', 'object_storage'];

/** Billing lifecycle, as in WHMCS. */
export const SERVICE_STATUSES = ['pending', 'active', 'suspended', 'cancelled', 'terminated'] as const;
export type ServiceStatus = (typeof SERVICE_STATUSES)[number];

/** `provisioning`: its machine is being made; `error`: provisioning failed for good, or the machine vanished (issue 32). */
export const POWER_STATES = ['running', 'stopped', 'starting', 'stopping', 'provisioning', 'error'] as const;
export type PowerState = (typeof POWER_STATES)[number];

export const ACTION_TYPES = ['start', 'stop', 'reboot', 'rebuild'] as const;
export type ActionType = (typeof ACTION_TYPES)[number];

export const ACTION_STATUSES = ['running', 'succeeded', 'failed'] as const;
export type ActionStatus = (typeof ACTION_STATUSES)[number];

export const VPS_REGIONS = ['eu-central', 'eu-west', 'us-east'] as const;
