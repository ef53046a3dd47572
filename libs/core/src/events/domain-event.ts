/**
 * Facts that cross module boundaries. Emitters depend on these types only, never on the module
 * that reacts (for example notifications).
 */
export interface DomainEventBase<N extends string, P> {
  name: N;
  accountId: string;
  occurredAt: Date;
  payload: P;
}

export type TicketRepliedEvent = DomainEventBase<
  'ticket.replied',
  { ticketId: string; reference: string; subject: string; messageId: string; author: 'customer' | 'staff' }
>;
export type TicketClosedEvent = DomainEventBase<'ticket.closed', { ticketId: string; reference: string; subject: string }>;
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
export type ApiKeyCreatedEvent = DomainEventBase<'api_key.created', { apiKeyId: string; name: string; prefix: string }>;
export type ApiKeyExpiringEvent = DomainEventBase<
  'api_key.expiring',
  { apiKeyId: string; name: string; prefix: string; expiresAt: string }
>;
/** An endpoint whose deliveries kept failing was disabled. */
export type WebhookDisabledEvent = DomainEventBase<'webhook.disabled', { webhookId: string; url: string; failingSince: string }>;
/** Sessions ended or API keys revoked: open event streams of the account check their credential again. */
export type CredentialsRevokedEvent = DomainEventBase<'credentials.revoked', Record<string, never>>;

export type DomainEvent =
  | TicketRepliedEvent
  | TicketClosedEvent
  | InstanceActionFinishedEvent
  | InstanceFaultEvent
  | ServiceStatusChangedEvent
  | ObjectStorageKeyRotatedEvent
  | ObjectStorageQuotaEvent
  | ApiKeyCreatedEvent
  | ApiKeyExpiringEvent
  | CredentialsRevokedEvent
  | WebhookDisabledEvent;

export function domainEvent<E extends DomainEvent>(name: E['name'], accountId: string, payload: E['payload']): E {
  return { name, accountId, payload, occurredAt: new Date() } as E;
}
