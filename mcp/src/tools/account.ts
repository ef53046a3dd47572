import { z } from 'zod';
import { type Schemas, unwrap } from '@hosting-account/sdk';
import { activityEntry, delivery, notification, pageOf, paging, sshKey, uuid, webhook } from '../schemas';
import { ref } from '../refs';
import { defineTool, READS, writes } from '../tool';

/** A webhook's URL as its origin: the path or query of an endpoint (a chat service's hook) is often its token. */
function webhookView(hook: Schemas['WebhookResponse']) {
  let url: string;
  try {
    const parsed = new URL(hook.url);
    url = parsed.pathname === '/' && !parsed.search ? parsed.origin : `${parsed.origin}/…`;
  } catch {
    url = '…';
  }
  return { ...hook, url };
}

export const ACCOUNT_TOOLS = [
  defineTool({
    name: 'ssh_keys_list',
    title: 'List SSH keys',
    description: 'Public SSH keys of the account (new and rebuilt servers let root log in with them).',
    scope: 'read',
    annotations: READS,
    input: { ...paging },
    output: pageOf(sshKey),
    run: (query, { api }) => unwrap(api.GET('/api/ssh-keys', { params: { query } })),
  }),
  defineTool({
    name: 'ssh_key_add',
    title: 'Add an SSH key',
    description:
      'Adds a public SSH key (one OpenSSH line: ssh-ed25519, ecdsa-sha2-nistp256/384/521 or ssh-rsa of 2048 bits or more). Never a private key.',
    scope: 'write',
    annotations: writes({ destructive: false, idempotent: false }),
    input: {
      name: z.string().min(1).max(100).describe('A name to recognise the key by'),
      publicKey: z.string().min(1).describe('The public key line'),
    },
    output: sshKey,
    run: (body, { api }) => unwrap(api.POST('/api/ssh-keys', { body })),
  }),
  defineTool({
    name: 'notifications_list',
    title: 'List notifications',
    description: 'What happened in the account (actions finished, tickets answered, limits reached), newest first.',
    scope: 'read',
    annotations: READS,
    input: { unread: z.boolean().optional().describe('Only unread (true) or only read (false) ones'), ...paging },
    output: pageOf(notification),
    run: ({ unread, ...query }, { api }) =>
      unwrap(
        api.GET('/api/notifications', {
          params: { query: { ...query, ...(unread === undefined ? {} : { unread: `${unread}` as const }) } },
        }),
      ),
  }),
  defineTool({
    name: 'notification_mark_read',
    title: 'Mark a notification read',
    description: 'Marks one notification read.',
    scope: 'write',
    annotations: writes({ destructive: false, idempotent: true }),
    input: { notificationId: uuid('The notification id') },
    output: notification,
    run: ({ notificationId }, { api }) => unwrap(api.POST('/api/notifications/{id}/read', { params: { path: { id: notificationId } } })),
  }),
  defineTool({
    name: 'notifications_mark_all_read',
    title: 'Mark every notification read',
    description: 'Marks every notification of the account read; the result says how many changed.',
    scope: 'write',
    annotations: writes({ destructive: false, idempotent: true }),
    input: {},
    output: z.looseObject({ updated: z.number().int() }),
    run: (_args, { api }) => unwrap(api.POST('/api/notifications/read-all')),
  }),
  defineTool({
    name: 'activity_list',
    title: 'Activity log',
    description:
      'The account activity log, newest first: who did what, when, from which address and client (user agent). Calls made through this server show "mcp" in the user agent.',
    scope: 'read',
    annotations: READS,
    input: {
      action: z.string().optional().describe('Only this action, e.g. instance.reboot'),
      entityType: z.string().optional().describe('Only entries about this kind of resource, e.g. service'),
      entityId: z.string().optional().describe('Only entries about this resource'),
      actor: z.uuid().optional().describe('Only what this member did: a member id (members_list)'),
      since: z.string().optional().describe('Only entries at or after this time (ISO 8601)'),
      ...paging,
    },
    output: pageOf(activityEntry),
    run: (query, { api }) => unwrap(api.GET('/api/events', { params: { query } })),
  }),
  defineTool({
    name: 'webhooks_list',
    title: 'List webhooks',
    description:
      'Webhook endpoints of the account: which events each receives, whether it is failing. URLs are shown as their origin only.',
    scope: 'read',
    annotations: READS,
    input: { ...paging },
    output: pageOf(webhook),
    run: async (query, { api }) => {
      const page = await unwrap(api.GET('/api/webhooks', { params: { query } }));
      return { ...page, data: page.data.map(webhookView) };
    },
  }),
  defineTool({
    name: 'webhook_deliveries_list',
    title: 'Webhook deliveries',
    description: 'Deliveries of one webhook, newest first: status, attempts, the last response code or error.',
    scope: 'read',
    annotations: READS,
    input: { webhookId: ref('webhook', 'The webhook id (from webhooks_list)'), ...paging },
    output: pageOf(delivery),
    run: ({ webhookId, ...query }, { api }) =>
      unwrap(api.GET('/api/webhooks/{id}/deliveries', { params: { path: { id: webhookId }, query } })),
  }),
];
