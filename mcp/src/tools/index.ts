import type { HostingTool } from '../tool';
import { ACCOUNT_TOOLS } from './account';
import { DNS_TOOLS } from './dns';
import { FIREWALL_TOOLS } from './firewalls';
import { MEMBER_TOOLS } from './members';
import { METRICS_TOOLS } from './metrics';
import { SERVICE_TOOLS } from './services';
import { SUPPORT_TOOLS } from './support';
import { VOLUME_TOOLS } from './volumes';
import { VPS_ACCESS_TOOLS } from './vps-access';

/** Every tool of the server, in the order clients list them. */
export const MCP_TOOLS: readonly HostingTool[] = [
  ...SERVICE_TOOLS,
  ...VPS_ACCESS_TOOLS,
  ...METRICS_TOOLS,
  ...VOLUME_TOOLS,
  ...FIREWALL_TOOLS,
  ...DNS_TOOLS,
  ...SUPPORT_TOOLS,
  ...ACCOUNT_TOOLS,
  ...MEMBER_TOOLS,
];
