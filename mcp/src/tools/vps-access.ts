import { z } from 'zod';
import { rescueInstance, resetRootPassword, unrescueInstance } from '@hosting-account/sdk';
import { action } from '../schemas';
import { ref } from '../refs';
import { defineTool, writes } from '../tool';
import { serviceId, settle, waiting } from './services';

/** A way back into a broken VPS: rescue mode and a root password reset. Both SHOW A SECRET once. */
export const VPS_ACCESS_TOOLS = [
  defineTool({
    name: 'vps_rescue',
    title: 'Boot a VPS into rescue mode',
    description:
      "SHOWS A SECRET: powers the VPS off and boots the rescue system, with the VPS's own disk as /dev/vdb (not mounted); root logs in with the chosen SSH keys, and the result's rootPassword (for the console) is shown this once. Ask the user to confirm first: what runs on the VPS stops. Power actions stay in rescue; vps_unrescue (or RESCUE_HOURS) ends it. Waits for the action unless wait is false.",
    scope: 'write',
    annotations: writes({ destructive: true, idempotent: false }),
    input: {
      serviceId,
      sshKeyIds: z
        .array(ref('sshKey', 'An SSH key id (ssh_keys_list)'))
        .optional()
        .describe('Keys root logs in with; omitted: all of the account keys'),
      ...waiting,
    },
    output: action.extend({ rootPassword: z.string(), rescueEndsAt: z.string() }),
    run: async (args, context) => {
      const { rootPassword, rescueEndsAt, ...started } = await rescueInstance(context.api, args.serviceId, { sshKeyIds: args.sshKeyIds });
      const settled = await settle(started, args, context);
      return 'isError' in settled ? settled : { ...settled, rootPassword, rescueEndsAt };
    },
  }),
  defineTool({
    name: 'vps_unrescue',
    title: 'End the rescue of a VPS',
    description:
      'Boots a VPS in rescue mode from its own disk again; the rescue system and its disk are deleted. Waits for the action unless wait is false.',
    scope: 'write',
    annotations: writes({ destructive: true, idempotent: false }),
    input: { serviceId, ...waiting },
    output: action,
    run: async (args, context) => settle(await unrescueInstance(context.api, args.serviceId), args, context),
  }),
  defineTool({
    name: 'vps_reset_password',
    title: 'Reset the root password of a VPS',
    description:
      'SHOWS A SECRET: sets a new root password in a running VPS through its QEMU guest agent and shows it this once. Use it only when the user asks; the old password stops working. A guest without the agent answers guest_agent_unavailable: vps_rescue is the way in then.',
    scope: 'write',
    annotations: writes({ destructive: true, idempotent: false }),
    input: { serviceId },
    output: z.looseObject({ rootPassword: z.string() }),
    run: async ({ serviceId: id }, { api }) => ({ rootPassword: await resetRootPassword(api, id) }),
  }),
];
