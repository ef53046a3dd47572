import { declareActivityActions, DomainEventBase } from '@app/core';

/** What the activity log records of services, VPS instances and object storage. */
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

export type InstanceActionFinishedEvent = DomainEventBase<
  'instance.action_succeeded' | 'instance.action_failed',
  { serviceId: string; serviceName: string; actionId: string; type: string; error: { code: string; message: string } | null }
>;
/** A VPS's machine is not usable: its provisioning failed for good, or it vanished from the hypervisor. */
export type InstanceFaultEvent = DomainEventBase<
  'instance.fault',
  { serviceId: string; serviceName: string; code: 'provisioning_failed' | 'machine_missing'; message: string }
>;
export type ServiceStatusChangedEvent = DomainEventBase<
  'service.status_changed',
  { serviceId: string; serviceName: string; from: string; to: string; reason: string | null }
>;
/** A new S3 key replaced the old one of an object storage service (the old one no longer works). */
export type ObjectStorageKeyRotatedEvent = DomainEventBase<
  'object_storage.credentials_rotated',
  { serviceId: string; serviceName: string; accessKeyId: string }
>;
/** Usage reached 80 % or 100 % of the quota (bytes or objects, whichever is fuller). */
export type ObjectStorageQuotaEvent = DomainEventBase<
  'object_storage.quota_warning',
  {
    serviceId: string;
    serviceName: string;
    percent: 80 | 100;
    usedBytes: number;
    quotaBytes: number;
    objects: number;
    quotaObjects: number;
  }
>;

declare module '@app/core' {
  interface AreaEvents {
    services: {
      actions: (typeof SERVICES_ACTIONS)[number];
      events:
        | InstanceActionFinishedEvent
        | InstanceFaultEvent
        | ServiceStatusChangedEvent
        | ObjectStorageKeyRotatedEvent
        | ObjectStorageQuotaEvent;
    };
  }
}
