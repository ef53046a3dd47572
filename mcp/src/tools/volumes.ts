import { z } from 'zod';
import { unwrap, type VolumeAction } from '@hosting-account/sdk';
import { ToolFailure } from '../errors';
import { pageOf, paging, service, uuid, volumeAction } from '../schemas';
import { ref } from '../refs';
import { defineTool, READS, ToolContext, writes } from '../tool';
import { waitForVolumeWithProgress } from '../wait';
import { failedAction, waiting } from './services';

const volumeId = ref('volume', 'The volume service id (from volumes_list)');
const waits = 'Waits for the action (progress notifications) unless wait is false; a failed action is a tool error with its code.';

/** The action as started, or as finished when waited for; a failed action is a tool error. */
async function settle(started: VolumeAction, args: { wait?: boolean; timeoutSeconds?: number }, context: ToolContext) {
  if (args.wait === false) return started;
  const done = await waitForVolumeWithProgress(started, args.timeoutSeconds ?? 300, context);
  return done.status === 'failed' ? failedAction(volumeAction, done, context) : done;
}

/** Volumes: block storage the provider makes for the account, attached to one VPS of its region at a time, grown in place. */
export const VOLUME_TOOLS = [
  defineTool({
    name: 'volumes_list',
    title: 'List volumes',
    description:
      'The volumes of the account (block storage the provider makes; the customer attaches them), newest first: size, region, state, the VPS each is attached to and its device path there.',
    scope: 'read',
    annotations: READS,
    input: {
      status: z.enum(['pending', 'active', 'suspended', 'cancelled', 'terminated']).optional().describe('Only volumes in this status'),
      ...paging,
    },
    output: pageOf(service),
    run: (query, { api }) => unwrap(api.GET('/api/services', { params: { query: { ...query, type: 'volume' } } })),
  }),
  defineTool({
    name: 'volume_get',
    title: 'Get a volume',
    description:
      "One volume by id: size, region, state (detached, attaching, attached, detaching, resizing), the VPS it is attached to, and its device: a path under /dev/disk/by-id that stays the same across reboots, for the VPS's /etc/fstab.",
    scope: 'read',
    annotations: READS,
    input: { volumeId },
    output: service,
    run: async ({ volumeId: id }, { api }) => {
      const found = await unwrap(api.GET('/api/services/{id}', { params: { path: { id } } }));
      if (found.type !== 'volume') throw new ToolFailure('not_found', `Service ${id} is a ${found.type}, not a volume (volumes_list).`);
      return found;
    },
  }),
  defineTool({
    name: 'volume_attach',
    title: 'Attach a volume to a VPS',
    description: `Attaches a detached volume to a VPS of the account and of the volume's region (region_mismatch otherwise; volume_in_use when it is on another VPS: detach it first). Live on a running VPS: the disk appears at the volume's device path; format it only if it is new (mkfs erases it). ${waits}`,
    scope: 'write',
    annotations: writes({ destructive: false, idempotent: true }),
    input: { volumeId, vpsServiceId: ref('vps', 'The VPS service id to attach to (services_list, type vps)'), ...waiting },
    output: volumeAction,
    run: async ({ volumeId: id, vpsServiceId, ...args }, context) => {
      const body = { serviceId: vpsServiceId };
      return settle(await unwrap(context.api.POST('/api/services/{id}/volume/attach', { params: { path: { id } }, body })), args, context);
    },
  }),
  defineTool({
    name: 'volume_detach',
    title: 'Detach a volume from its VPS',
    description: `Detaches a volume from the VPS it is attached to: what runs there loses the disk. Ask the user to confirm first, and to unmount it in the VPS (a VPS that still holds it fails the action with detach_refused; the volume stays attached). ${waits}`,
    scope: 'write',
    annotations: writes({ destructive: true, idempotent: true }),
    input: { volumeId, ...waiting },
    output: volumeAction,
    run: async ({ volumeId: id, ...args }, context) =>
      settle(await unwrap(context.api.POST('/api/services/{id}/volume/detach', { params: { path: { id } } })), args, context),
  }),
  defineTool({
    name: 'volume_resize',
    title: 'Grow a volume',
    description: `Grows a volume to a larger size in GiB (never smaller: invalid_input), attached or not; its price follows the size, so tell the user. The VPS sees the new size at once; its filesystem must then be grown in the VPS (resize2fs, xfs_growfs). ${waits}`,
    scope: 'write',
    annotations: writes({ destructive: false, idempotent: true }),
    input: {
      volumeId,
      sizeGb: z.number().int().min(1).max(10240).describe('The new size in GiB, larger than the current one'),
      ...waiting,
    },
    output: volumeAction,
    run: async ({ volumeId: id, sizeGb, ...args }, context) => {
      const params = { params: { path: { id } }, body: { sizeGb } };
      return settle(await unwrap(context.api.POST('/api/services/{id}/volume/resize', params)), args, context);
    },
  }),
  defineTool({
    name: 'volume_action_get',
    title: 'Get a volume action',
    description: 'One attach, detach or resize of a volume by id: running, succeeded or failed (with the error).',
    scope: 'read',
    annotations: READS,
    input: { volumeId, actionId: uuid('The action id') },
    output: volumeAction,
    run: ({ volumeId: id, actionId }, { api }) =>
      unwrap(api.GET('/api/services/{id}/volume/actions/{actionId}', { params: { path: { id, actionId } } })),
  }),
];
