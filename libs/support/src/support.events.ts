import { declareActivityActions, DomainEventBase } from '@app/core';

export const SUPPORT_ACTIONS = declareActivityActions(50, ['ticket.create', 'ticket.reply', 'ticket.close'] as const);

export type TicketRepliedEvent = DomainEventBase<
  'ticket.replied',
  { ticketId: string; reference: string; subject: string; messageId: string; author: 'customer' | 'staff' }
>;
export type TicketClosedEvent = DomainEventBase<'ticket.closed', { ticketId: string; reference: string; subject: string }>;

declare module '@app/core' {
  interface AreaEvents {
    support: { actions: (typeof SUPPORT_ACTIONS)[number]; events: TicketRepliedEvent | TicketClosedEvent };
  }
}
