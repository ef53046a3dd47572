import { declareActivityActions } from '@app/core';

/** What the activity log records of DNS zones and their records (a VPS address's PTR is the VPS area's `instance.rdns_update`). */
export const DNS_ACTIONS = declareActivityActions(36, [
  'dns.zone.create',
  'dns.zone.delete',
  'dns.zone.import',
  'dns.record.create',
  'dns.record.update',
  'dns.record.delete',
] as const);

declare module '@app/core' {
  interface AreaEvents {
    dns: { actions: (typeof DNS_ACTIONS)[number]; events: never };
  }
}
