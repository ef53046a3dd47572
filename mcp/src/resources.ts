import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { type HostingClient, unwrap } from '@hosting-account/sdk';
import type { Fence } from './untrusted';

export const SUMMARY_URI = 'hosting://account/summary';
export const OPENAPI_URI = 'hosting://api/openapi.json';

/** Who the account is and what it holds, in one read: the facts an agent starts a conversation with. */
async function accountSummary(api: HostingClient, fence: Fence) {
  const total = async (call: Promise<{ total: number }>) => (await call).total;
  const [account, vps, objectStorage, unread, openTickets, answeredTickets] = await Promise.all([
    unwrap(api.GET('/api/auth/me')),
    total(unwrap(api.GET('/api/services', { params: { query: { type: 'vps', pageSize: 1 } } }))),
    total(unwrap(api.GET('/api/services', { params: { query: { type: 'object_storage', pageSize: 1 } } }))),
    unwrap(api.GET('/api/notifications/unread-count')),
    total(unwrap(api.GET('/api/support/tickets', { params: { query: { status: 'open', pageSize: 1 } } }))),
    total(unwrap(api.GET('/api/support/tickets', { params: { query: { status: 'answered', pageSize: 1 } } }))),
  ]);
  return {
    account: { id: account.id, name: fence.text(account.name), email: fence.text(account.email) },
    services: { vps, objectStorage },
    unreadNotifications: unread.count,
    tickets: { open: openTickets, answeredAwaitingCustomer: answeredTickets },
  };
}

/** The document's JSON text, made on the first read and kept (it is large: a read must not serialise it again). */
function documentText(openApiDocument: () => Promise<unknown>): () => Promise<string> {
  let text: Promise<string> | undefined;
  return () =>
    (text ??= openApiDocument().then(
      (document) => (typeof document === 'string' ? document : JSON.stringify(document)),
      (error: unknown) => {
        text = undefined;
        throw error;
      },
    ));
}

export function registerResources(server: McpServer, api: HostingClient, fence: Fence, openApiDocument?: () => Promise<unknown>): void {
  server.registerResource(
    'account-summary',
    SUMMARY_URI,
    {
      title: 'Account summary',
      description: 'The account, how many services it has, unread notifications and open tickets.',
      mimeType: 'application/json',
    },
    async (uri) => ({
      contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(await accountSummary(api, fence)) }],
    }),
  );
  if (!openApiDocument) return;
  const text = documentText(openApiDocument);
  server.registerResource(
    'openapi',
    OPENAPI_URI,
    {
      title: 'OpenAPI document',
      description: 'The OpenAPI 3.1 document of the hosting account API the tools call.',
      mimeType: 'application/json',
    },
    async (uri) => ({ contents: [{ uri: uri.href, mimeType: 'application/json', text: await text() }] }),
  );
}
