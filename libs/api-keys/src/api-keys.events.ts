import { declareActivityActions, DomainEventBase } from '@app/core';

export const API_KEY_ACTIONS = declareActivityActions(20, ['api_key.create', 'api_key.revoke', 'api_key.refused'] as const);

export type ApiKeyCreatedEvent = DomainEventBase<'api_key.created', { apiKeyId: string; name: string; prefix: string }>;
export type ApiKeyExpiringEvent = DomainEventBase<
  'api_key.expiring',
  { apiKeyId: string; name: string; prefix: string; expiresAt: string }
>;

declare module '@app/core' {
  interface AreaEvents {
    apiKeys: { actions: (typeof API_KEY_ACTIONS)[number]; events: ApiKeyCreatedEvent | ApiKeyExpiringEvent };
  }
}
