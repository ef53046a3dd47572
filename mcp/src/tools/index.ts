import type { HostingTool } from '../tool';
import { ACCOUNT_TOOLS } from './account';
import { SERVICE_TOOLS } from './services';
import { SUPPORT_TOOLS } from './support';

/** Every tool of the server, in the order clients list them. */
export const MCP_TOOLS: readonly HostingTool[] = [...SERVICE_TOOLS, ...SUPPORT_TOOLS, ...ACCOUNT_TOOLS];
