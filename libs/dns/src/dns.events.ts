import { declareActivityActions } from '@app/core';

/** What the activity log records of DNS: zones, their records, and the PTRs of VPS addresses. */
export const DNS_ACTIONS = declareActivityActions(36, [
  'dns.zone.create',
  'dns.zone.delete',
  'dns.zone.import',
  'dns.record.create',
  'dns.record.update',
  'dns.record.delete',
  'dns.ptr.update',
] as const);

declare module '@app/core' {
  interface AreaEvents {
    dns: { actions: (typeof DNS_ACTIONS)[number]; events: never };
  }
}
