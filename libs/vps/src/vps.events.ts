import { declareActivityActions, DomainEventBase } from '@app/core';

/** What the activity log records of VPS instances (after the services' own, order 30). */
export const VPS_ACTIONS = declareActivityActions(31, [
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
  'instance.snapshot',
  'instance.password_reset',
  'image.delete',
  'instance.backup',
  'instance.restore',
  'instance.backups_enable',
  'instance.backups_disable',
  'instance.backup_image',
  'instance.rescue',
  'instance.unrescue',
  'instance.evacuate',
  'instance.rdns_update',
] as const);

export type InstanceActionFinishedEvent = DomainEventBase<
  'instance.action_succeeded' | 'instance.action_failed',
  { serviceId: string; serviceName: string; actionId: string; type: string; error: { code: string; message: string } | null }
>;
/** A VPS's machine is not usable: its provisioning failed for good, or it vanished from the hypervisor. */
export type InstanceFaultEvent = DomainEventBase<
  'instance.fault',
  { serviceId: string; serviceName: string; code: 'provisioning_failed' | 'machine_missing'; message: string }
>;

/** A backup of a VPS failed: the customer hears of it, since a backup they count on is missing. */
export type InstanceBackupFailedEvent = DomainEventBase<
  'instance.backup_failed',
  { serviceId: string; serviceName: string; backupId: string; error: { code: string; message: string } }
>;

/**
 * Rescue mode began (the customer asked) or is ending (the customer's unrescue, or `expired`: it
 * ended by itself after RESCUE_HOURS), and a root password was reset: the customer is told and mailed,
 * never a password.
 */
export type InstanceAccessEvent =
  | DomainEventBase<'instance.rescue_started', { serviceId: string; serviceName: string; actionId: string; endsAt: string }>
  | DomainEventBase<'instance.rescue_ended', { serviceId: string; serviceName: string; actionId: string; reason: 'unrescue' | 'expired' }>
  | DomainEventBase<'instance.password_reset', { serviceId: string; serviceName: string }>;

/**
 * A running VPS is stopped to move to another host (`host:drain`) and the move ended:
 * `running` again on the new host, or `stopped` (the move was rolled back, or it could not be
 * started there). The customer is told and mailed before and after.
 */
export type InstanceMoveEvent =
  | DomainEventBase<'instance.move_started', { serviceId: string; serviceName: string; moveId: string }>
  | DomainEventBase<
      'instance.move_finished',
      /** `live`: moved while it ran (no stop, no earlier notice). */
      { serviceId: string; serviceName: string; moveId: string; outcome: 'running' | 'stopped'; live?: boolean }
    >;

/**
 * The host of a VPS died and the operator evacuated it: it was made again on another host from its
 * own disk on shared storage (`restarted`: nothing lost), its backup of `backupAt` (`restored`), or
 * its image (`rebuilt`: its data is lost).
 */
export type InstanceEvacuatedEvent = DomainEventBase<
  'instance.evacuated',
  {
    serviceId: string;
    serviceName: string;
    outcome: 'restarted' | 'restored' | 'rebuilt';
    backupId: string | null;
    backupAt: string | null;
    image: string | null;
    powerState: string;
  }
>;

declare module '@app/core' {
  interface AreaEvents {
    vps: {
      actions: (typeof VPS_ACTIONS)[number];
      events:
        | InstanceActionFinishedEvent
        | InstanceFaultEvent
        | InstanceBackupFailedEvent
        | InstanceAccessEvent
        | InstanceMoveEvent
        | InstanceEvacuatedEvent;
    };
  }
}
