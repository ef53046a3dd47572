import { declareActivityActions, DomainEventBase } from '@app/core';

/** What the activity log records of metric alerts (after the VPS's own, order 31). */
export const METRICS_ACTIONS = declareActivityActions(33, [
  'instance.alert_create',
  'instance.alert_delete',
  'instance.alert_fired',
  'instance.alert_resolved',
] as const);

/** A metric alert crossed its threshold: once per crossing, not once per check. */
export type InstanceAlertEvent = DomainEventBase<
  'instance.alert_fired' | 'instance.alert_resolved',
  { serviceId: string; serviceName: string; alertId: string; type: string; above: number; forMinutes: number; value: number | null }
>;

declare module '@app/core' {
  interface AreaEvents {
    metrics: { actions: (typeof METRICS_ACTIONS)[number]; events: InstanceAlertEvent };
  }
}
