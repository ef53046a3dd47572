import { declareActivityActions, DomainEventBase } from '@app/core';

export const WEBHOOK_ACTIONS = declareActivityActions(60, [
  'webhook.create',
  'webhook.update',
  'webhook.delete',
  'webhook.rotate_secret',
  'webhook.test',
  'webhook.disable',
] as const);

/** An endpoint whose deliveries kept failing was disabled. */
export type WebhookDisabledEvent = DomainEventBase<'webhook.disabled', { webhookId: string; url: string; failingSince: string }>;

declare module '@app/core' {
  interface AreaEvents {
    webhooks: { actions: (typeof WEBHOOK_ACTIONS)[number]; events: WebhookDisabledEvent };
  }
}
