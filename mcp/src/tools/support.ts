import { z } from 'zod';
import { type Schemas, unwrap } from '@hosting-account/sdk';
import { pageOf, paging, ticket, ticketMessage, ticketWithMessages } from '../schemas';
import { ref } from '../refs';
import { defineTool, READS, writes } from '../tool';

const ticketId = ref('ticket', 'The ticket id (from tickets_list)');

/** Attachments without their download URLs: a presigned URL is a capability, and an agent does not fetch it. */
function withoutDownloadUrls<T extends { attachments: Schemas['AttachmentResponse'][] }>(message: T) {
  return { ...message, attachments: message.attachments.map(({ downloadUrl: _url, downloadUrlExpiresAt: _until, ...file }) => file) };
}

function ticketView(t: Schemas['TicketWithMessagesResponse']) {
  return { ...t, messages: t.messages.map(withoutDownloadUrls) };
}

export const SUPPORT_TOOLS = [
  defineTool({
    name: 'tickets_list',
    title: 'List support tickets',
    description: 'Support tickets of the account, newest first.',
    scope: 'read',
    annotations: READS,
    input: {
      status: z.enum(['open', 'answered', 'customer_reply', 'closed']).optional().describe('Only tickets in this status'),
      ...paging,
    },
    output: pageOf(ticket),
    run: (query, { api }) => unwrap(api.GET('/api/support/tickets', { params: { query } })),
  }),
  defineTool({
    name: 'ticket_get',
    title: 'Get a support ticket',
    description: 'One ticket with its conversation (attachments are named, their download links left out).',
    scope: 'read',
    annotations: READS,
    input: { ticketId },
    output: ticketWithMessages,
    run: async ({ ticketId }, { api }) =>
      ticketView(await unwrap(api.GET('/api/support/tickets/{id}', { params: { path: { id: ticketId } } }))),
  }),
  defineTool({
    name: 'ticket_create',
    title: 'Open a support ticket',
    description:
      'Opens a ticket with the provider support. Show the user the subject and message and get their agreement before calling it. Put facts in the message: service id, what happened, when, what was tried.',
    scope: 'write',
    annotations: writes({ destructive: false, idempotent: false }),
    input: {
      subject: z.string().min(1).max(200).describe('Short summary'),
      message: z.string().min(1).describe('The first message'),
      priority: z.enum(['low', 'medium', 'high']).optional().describe('How urgent it is (default medium)'),
      department: z.enum(['general', 'billing', 'technical', 'abuse']).optional().describe('Who should answer (default general)'),
      serviceId: ref('service', 'The service the ticket is about').optional(),
    },
    output: ticketWithMessages,
    run: async (body, { api }) => ticketView(await unwrap(api.POST('/api/support/tickets', { body }))),
  }),
  defineTool({
    name: 'ticket_reply',
    title: 'Reply to a support ticket',
    description: 'Adds a message of the customer to a ticket (a closed ticket opens again).',
    scope: 'write',
    annotations: writes({ destructive: false, idempotent: false }),
    input: { ticketId, message: z.string().min(1).describe('The reply') },
    output: ticketMessage,
    run: async ({ ticketId, message }, { api }) =>
      withoutDownloadUrls(
        await unwrap(api.POST('/api/support/tickets/{id}/reply', { params: { path: { id: ticketId } }, body: { message } })),
      ),
  }),
  defineTool({
    name: 'ticket_close',
    title: 'Close a support ticket',
    description: 'Closes a ticket the customer no longer needs.',
    scope: 'write',
    annotations: writes({ destructive: false, idempotent: true }),
    input: { ticketId },
    output: ticket,
    run: ({ ticketId }, { api }) => unwrap(api.POST('/api/support/tickets/{id}/close', { params: { path: { id: ticketId } } })),
  }),
];
