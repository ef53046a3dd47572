import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { createHostingClient } from '@hosting-account/sdk';
import type { createMcpServer } from '@hosting-account/mcp';

/** What an MCP session needs of the SDKs: loaded on the first request to /mcp, not at boot. */
export interface McpRuntime {
  Transport: typeof StreamableHTTPServerTransport;
  isInitializeRequest: typeof isInitializeRequest;
  createHostingClient: typeof createHostingClient;
  createMcpServer: typeof createMcpServer;
  userAgent: string;
}

let loading: Promise<McpRuntime> | undefined;

/**
 * The MCP SDK, its schemas (zod, ajv) and the customer SDK take about 25 MB of every API
 * process's memory once loaded; most processes never serve /mcp, so they are loaded when one does.
 */
export function mcpRuntime(): Promise<McpRuntime> {
  loading ??= (async () => {
    const [transport, types, sdk, mcp] = await Promise.all([
      import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
      import('@modelcontextprotocol/sdk/types.js'),
      import('@hosting-account/sdk'),
      import('@hosting-account/mcp'),
    ]);
    return {
      Transport: transport.StreamableHTTPServerTransport,
      isInitializeRequest: types.isInitializeRequest,
      createHostingClient: sdk.createHostingClient,
      createMcpServer: mcp.createMcpServer,
      userAgent: `hosting-account-mcp/${mcp.MCP_VERSION}`,
    };
  })();
  return loading;
}
