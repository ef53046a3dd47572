import type { Implementation } from '@modelcontextprotocol/sdk/types.js';
import type { HostingClient } from '@hosting-account/sdk';

type Middleware = Parameters<HostingClient['use']>[0];

/** What the MCP client says it is, cut to characters a User-Agent and a log line take safely. */
const clean = (text: string) => text.replace(/[^\w.@+-]/g, '').slice(0, 40);

/** Sets `User-Agent: <base> (<client>/<version>)` on every call, so the activity log names the assistant. */
export function namingTheClient(base: string, client: () => Implementation | undefined): Middleware {
  return {
    onRequest({ request }) {
      const info = client();
      const name = info && clean(info.name);
      request.headers.set('User-Agent', name ? `${base} (${name}/${clean(info.version) || '?'})` : base);
      return request;
    },
  };
}
