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
export type ServiceStatusChangedEvent = DomainEventBase<
  'service.status_changed',
  { serviceId: string; serviceName: string; from: string; to: string; reason: string | null }
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
  | ServiceStatusChangedEvent
  | ApiKeyCreatedEvent
  | ApiKeyExpiringEvent
  | CredentialsRevokedEvent
  | WebhookDisabledEvent;

export function domainEvent<E extends DomainEvent>(name: E['name'], accountId: string, payload: E['payload']): E {
  return { name, accountId, payload, occurredAt: new Date() } as E;
}
