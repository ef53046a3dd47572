import { declareActivityActions } from '@app/core';

/** What the activity log records of cloud firewalls (after the VPS area's own). */
export const FIREWALL_ACTIONS = declareActivityActions(34, [
  'firewall.create',
  'firewall.update',
  'firewall.delete',
  'firewall.apply',
  'firewall.remove',
] as const);

declare module '@app/core' {
  interface AreaEvents {
    firewalls: { actions: (typeof FIREWALL_ACTIONS)[number]; events: never };
  }
}
