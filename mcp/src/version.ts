export const MCP_VERSION = '0.1.0';
