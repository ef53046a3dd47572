// The hosting account's MCP server: tools, resources and prompts over @hosting-account/sdk. The API
// serves it at /mcp (Streamable HTTP); `hostctl mcp` runs it over stdio.
export { createMcpServer } from './server';
export type { HostingMcpOptions } from './server';
export { serveOverStdio } from './stdio';
export { MCP_TOOLS } from './tools';
export type { HostingTool, Scope } from './tool';
export { toolTable } from './tool-table';
export { OPENAPI_URI, SUMMARY_URI } from './resources';
export { MCP_VERSION } from './version';
