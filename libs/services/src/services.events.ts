import { declareActivityActions, DomainEventBase } from '@app/core';

/** What the activity log records of services; their kinds declare their own (VPS 31, object storage 32). */
export const SERVICES_ACTIONS = declareActivityActions(30, ['service.create', 'service.status_change'] as const);

export type ServiceStatusChangedEvent = DomainEventBase<
  'service.status_changed',
  { serviceId: string; serviceName: string; from: string; to: string; reason: string | null }
>;

declare module '@app/core' {
  interface AreaEvents {
    services: {
      actions: (typeof SERVICES_ACTIONS)[number];
      events: ServiceStatusChangedEvent;
    };
  }
}
