import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';

/**
 * Serves the server over this process's stdin and stdout (what a desktop assistant starts) until
 * the client goes away. Nothing else may write to stdout meanwhile: it carries the protocol.
 */
export async function serveOverStdio(server: McpServer): Promise<void> {
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => (transport.onclose = resolve));
  await server.connect(transport);
  process.stdin.once('end', () => void server.close());
  await closed;
}
