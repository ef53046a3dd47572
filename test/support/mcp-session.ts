export const MCP_PROTOCOL_VERSION = '2025-06-18';

export interface RawMcpSession {
  id: string;
  /** Headers of a request in the session (JSON or its stream). */
  headers: Record<string, string>;
  /** Opens the server's stream of the session (GET); resolves when the server ends it. */
  openStream(): Promise<{ status: number; ended: Promise<void> }>;
}

/** Text as an MCP server of ours fences what customers and third parties wrote: `<untrusted-NONCE>text</untrusted-NONCE>`. */
export function fenced(text: string): string {
  return expect.stringMatching(
    new RegExp(`^<(untrusted-[0-9a-f]+)>${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}</\\1>$`),
  ) as unknown as string;
}

/** An MCP session over plain fetch (initialize, initialized), to watch its stream end. */
export async function openRawMcpSession(
  baseUrl: string,
  bearer: string,
  extraHeaders: Record<string, string> = {},
): Promise<RawMcpSession> {
  const headers = {
    Authorization: bearer,
    Accept: 'application/json, text/event-stream',
    'Content-Type': 'application/json',
    ...extraHeaders,
  };
  const init = await fetch(`${baseUrl}/mcp`, {
    method: 'POST',
    headers,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: MCP_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    }),
  });
  await init.text();
  if (init.status !== 200) throw new Error(`initialize answered ${init.status}`);
  const id = init.headers.get('mcp-session-id')!;
  const inSession = { ...headers, 'mcp-session-id': id, 'mcp-protocol-version': MCP_PROTOCOL_VERSION };
  const initialized = await fetch(`${baseUrl}/mcp`, {
    method: 'POST',
    headers: inSession,
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  });
  await initialized.text();
  return {
    id,
    headers: inSession,
    async openStream() {
      const stream = await fetch(`${baseUrl}/mcp`, { headers: { ...inSession, Accept: 'text/event-stream' } });
      return { status: stream.status, ended: stream.body!.pipeTo(new WritableStream()).catch(() => undefined) };
    },
  };
}
