import { declareActivityActions, DomainEventBase } from '@app/core';

/** What the activity log records of object storage (after VPS instances, order 31). */
export const OBJECT_STORAGE_ACTIONS = declareActivityActions(32, [
  'object_storage.credentials_view',
  'object_storage.credentials_rotate',
] as const);

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
    objectStorage: {
      actions: (typeof OBJECT_STORAGE_ACTIONS)[number];
      events: ObjectStorageKeyRotatedEvent | ObjectStorageQuotaEvent;
    };
  }
}
