import type { Actor } from '@app/core';
import type { BillingCycle } from '@app/products';
import type { ServiceStatus, ServiceType } from '../service.types';

/** What the operator's command, demo data and tests provision; the options of each kind are its own (e.g. VpsProvisionSpec). */
export interface ProvisionSpec {
  type: ServiceType;
  /** Default `active`. */
  status?: ServiceStatus;
  /** Default: the smallest available product of the type. */
  productSlug?: string;
  /** Default `monthly` (or the product's first cycle if it has no monthly price). */
  billingCycle?: BillingCycle;
  /** With count > 1, numbered `name-1`, `name-2`...; default `<product slug>-<random>`. */
  name?: string;
  /** Default: the time of insertion (one microsecond apart, so the list order is creation order). */
  createdAt?: Date;
  /**
   * Also make what the service runs outside the database where its kind can leave it out (a VPS's
   * machine on the hypervisor), by a durable job (see `wait`): the operator's command. Demo data and
   * tests leave it off.
   */
  machines?: boolean;
  /** Records each new service in the activity log as made by this actor (the operator's command); demo data and tests record nothing. */
  actor?: Actor;
  /**
   * Wait until what the kind makes outside the database is made (the provisioning jobs run in this
   * process), and answer with the state it ended in. False: answer at once; the job queue of the API
   * servers makes them.
   */
  wait?: boolean;
  /** A kind's own options (ServiceKind.options), e.g. a VPS's `region` or `image`. */
  [option: string]: unknown;
}

/** Keys every kind takes; any other key is a kind's option. */
export const COMMON_SPEC_KEYS: readonly string[] = [
  'type',
  'status',
  'productSlug',
  'billingCycle',
  'name',
  'createdAt',
  'machines',
  'actor',
  'wait',
];

/** A spec a kind refuses, named by its field: the operator's command reports it as a usage error, the provisioner as invalid input. */
export class ProvisionSpecError extends Error {
  constructor(
    readonly field: string,
    readonly reason: string,
  ) {
    super(`${field} ${reason}`);
  }
}
