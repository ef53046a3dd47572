import { declareActivityActions } from '@app/core';

/** What the activity log records of DNS zones and their records (a VPS address's PTR is the VPS area's `instance.rdns_update`). */
export const DNS_ACTIONS = declareActivityActions(36, [
  'dns_zone.create',
  'dns_zone.delete',
  'dns_zone.import',
  'dns_record.create',
  'dns_record.update',
  'dns_record.delete',
] as const);

declare module '@app/core' {
  interface AreaEvents {
    dns: { actions: (typeof DNS_ACTIONS)[number]; events: never };
  }
}
