import { Command } from 'commander';
import { examples, globals } from '../command-context';
import { apiClient, target, USER_AGENT } from '../session';

export function mcpCommand(): Command {
  return new Command('mcp')
    .description('Run the MCP server over stdio, for an AI assistant that starts it (Claude Desktop, an IDE, ...)')
    .option('--read-only', 'offer only the tools that read (even when the credential may write)')
    .addHelpText(
      'after',
      "\nIt uses the context's credentials, or HOSTCTL_TOKEN and HOSTCTL_URL, as every command does. Every tool call\n" +
        'is an API request with them, shown in the activity log with "hostctl/<version> mcp (<assistant>)" as user agent.\n' +
        'A 429 is not waited out: the tool error says when to retry.\n' +
        examples('hostctl mcp', 'HOSTCTL_TOKEN=hpk_... HOSTCTL_URL=https://api.hosting.example hostctl mcp --read-only'),
    )
    .action(async (options: { readOnly?: boolean }, command: Command) => {
      const out = globals(command);
      const api = apiClient({ ...out, waitRateLimit: false });
      const { url } = target(out.context);
      // The MCP SDK (zod, ajv and their schemas) is most of what hostctl would load at start: only this command needs it.
      const { createMcpServer, serveOverStdio } = await import('@hosting-account/mcp');
      const server = createMcpServer(api, {
        ...(options.readOnly ? { scopes: ['read'] as const } : {}),
        userAgent: `${USER_AGENT} mcp`,
        openApiDocument: () => openApiDocument(url),
      });
      await serveOverStdio(server);
    });
}

async function openApiDocument(url: string): Promise<unknown> {
  const response = await fetch(`${url}/openapi.json`, { headers: { 'User-Agent': `${USER_AGENT} mcp` } });
  if (!response.ok) throw new Error(`The API does not publish its OpenAPI document at ${url}/openapi.json (HTTP ${response.status}).`);
  return response.json();
}
