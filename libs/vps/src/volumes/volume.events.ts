import { declareActivityActions } from '@app/core';

/** What the activity log records of volumes' actions (after the firewalls'). */
export const VOLUME_ACTIONS = declareActivityActions(35, ['volume.attach', 'volume.detach', 'volume.resize'] as const);

declare module '@app/core' {
  interface AreaEvents {
    volumes: { actions: (typeof VOLUME_ACTIONS)[number]; events: never };
  }
}
