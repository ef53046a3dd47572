import { declareActivityActions } from '@app/core';

/** The services area's actions (its domain events are still declared in core; issue 28 left libs/services to issue 32). */
export const SERVICES_ACTIONS = declareActivityActions(30, [
  'service.create',
  'service.status_change',
  'instance.start',
  'instance.stop',
  'instance.reboot',
  'instance.rebuild',
  'instance.action_succeeded',
  'instance.action_failed',
  'instance.console',
  'instance.provisioned',
  'instance.provision_failed',
  'instance.power_state_observed',
  'instance.machine_missing',
  'object_storage.credentials_view',
  'object_storage.credentials_rotate',
] as const);

declare module '@app/core' {
  interface AreaEvents {
    services: { actions: (typeof SERVICES_ACTIONS)[number]; events: never };
  }
}
