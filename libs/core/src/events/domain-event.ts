/**
 * Facts that cross module boundaries. Emitters depend on these types only, never on the module
 * that reacts (for example notifications); a listener names an event by `DomainEventNamed<'name'>`
 * and needs no import of the emitting area either.
 */
export interface DomainEventBase<N extends string, P> {
  name: N;
  accountId: string;
  occurredAt: Date;
  payload: P;
}

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
/** Sessions ended or API keys revoked: open event streams of the account check their credential again. */
export type CredentialsRevokedEvent = DomainEventBase<'credentials.revoked', Record<string, never>>;

/**
 * What each area declares in its `libs/<area>/src/<area>.events.ts`: its activity actions and its
 * domain events, added here by declaration merging
 * (`declare module '@app/core' { interface AreaEvents { <area>: { actions: ...; events: ... } } }`),
 * so `ActivityAction` and `DomainEvent` are the unions of what the areas declare. Core holds the
 * event every area shares, and the services area's (issue 28 left libs/services to issue 32).
 */
export interface AreaEvents {
  core: {
    actions: never;
    events:
      | CredentialsRevokedEvent
      | InstanceActionFinishedEvent
      | InstanceFaultEvent
      | ServiceStatusChangedEvent
      | ObjectStorageKeyRotatedEvent
      | ObjectStorageQuotaEvent;
  };
}

export type DomainEvent = AreaEvents[keyof AreaEvents]['events'];
/** The event of this name, for a listener that does not import the emitting area. */
export type DomainEventNamed<N extends DomainEvent['name']> = Extract<DomainEvent, { name: N }>;

export function domainEvent<E extends DomainEvent>(name: E['name'], accountId: string, payload: E['payload']): E {
  return { name, accountId, payload, occurredAt: new Date() } as E;
}
