import { z } from 'zod';
import { type HostingClient, type InstanceAction, unwrap } from '@hosting-account/sdk';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { action, address, backup, image, pageOf, paging, service, storageCredentials, uuid } from '../schemas';
import { ref } from '../refs';
import { defineTool, READS, ToolContext, writes } from '../tool';
import { waitWithProgress } from '../wait';

export const serviceId = ref('service', 'The service id (from services_list)');
export const waiting = {
  wait: z.boolean().optional().describe('Wait until the action has finished, with progress notifications (default true)'),
  timeoutSeconds: z
    .number()
    .int()
    .min(1)
    .max(1800)
    .optional()
    .describe('Give up waiting after this long (default 300); the action goes on'),
};

/** The action as started, or as finished when waited for; a failed action is a tool error. */
export async function settle(started: InstanceAction, args: { wait?: boolean; timeoutSeconds?: number }, context: ToolContext) {
  if (args.wait === false) return started;
  const done = await waitWithProgress(started, args.timeoutSeconds ?? 300, context);
  return done.status === 'failed' ? failedAction(action, done, context) : done;
}

/** A failed action (a VPS's or a volume's) as a tool error: what failed and why, then the action, fenced by its schema. */
export function failedAction<T extends { type: string; error: { code: string; message: string } | null }>(
  schema: z.ZodType,
  done: T,
  context: ToolContext,
): CallToolResult {
  const seen = context.fence.apply(schema, done);
  return {
    isError: true,
    content: [
      { type: 'text', text: `${seen.type} failed: ${seen.error?.code ?? 'unknown'}: ${seen.error?.message ?? ''}` },
      { type: 'text', text: JSON.stringify({ action: seen }) },
    ],
  };
}

type Power = 'start' | 'stop' | 'reboot';

function power(api: HostingClient, type: Power, id: string) {
  const params = { params: { path: { id } } };
  if (type === 'start') return api.POST('/api/services/{id}/instance/start', params);
  if (type === 'stop') return api.POST('/api/services/{id}/instance/stop', params);
  return api.POST('/api/services/{id}/instance/reboot', params);
}

function powerTool(type: Power, title: string, description: string, hints: { destructive: boolean; idempotent: boolean }) {
  return defineTool({
    name: `vps_${type}`,
    title,
    description: `${description} Waits for the action (progress notifications) unless wait is false; the result is the action.`,
    scope: 'write',
    annotations: writes(hints),
    input: { serviceId, ...waiting },
    output: action,
    run: async (args, context) => settle(await unwrap(power(context.api, type, args.serviceId)), args, context),
  });
}

export const SERVICE_TOOLS = [
  defineTool({
    name: 'services_list',
    title: 'List services',
    description:
      'The services of the account (VPS instances, volumes and object storage), newest first, with each VPS power state and addresses.',
    scope: 'read',
    annotations: READS,
    input: {
      type: z.enum(['vps', 'volume', 'object_storage']).optional().describe('Only services of this type'),
      status: z.enum(['pending', 'active', 'suspended', 'cancelled', 'terminated']).optional().describe('Only services in this status'),
      ...paging,
    },
    output: pageOf(service),
    run: (query, { api }) => unwrap(api.GET('/api/services', { params: { query } })),
  }),
  defineTool({
    name: 'service_get',
    title: 'Get a service',
    description:
      'One service of the account by id: status, price, for a VPS its power state, addresses, SSH access and volumes, for a volume its size, state and device.',
    scope: 'read',
    annotations: READS,
    input: { serviceId },
    output: service,
    run: ({ serviceId }, { api }) => unwrap(api.GET('/api/services/{id}', { params: { path: { id: serviceId } } })),
  }),
  powerTool('start', 'Start a VPS', 'Powers on a stopped VPS.', { destructive: false, idempotent: true }),
  powerTool('stop', 'Stop a VPS', 'Shuts a VPS down (ACPI, then power off if it does not stop in time): what runs on it stops.', {
    destructive: true,
    idempotent: true,
  }),
  powerTool('reboot', 'Reboot a VPS', 'Reboots a running VPS: what runs on it restarts.', { destructive: true, idempotent: false }),
  defineTool({
    name: 'vps_rebuild',
    title: 'Rebuild a VPS',
    description:
      'Reinstalls a VPS from an image: EVERYTHING ON ITS DISK IS ERASED. Ask the user to confirm first. Waits for the action (progress notifications) unless wait is false.',
    scope: 'write',
    annotations: writes({ destructive: true, idempotent: false }),
    input: {
      serviceId,
      image: z.string().min(1).describe('Slug or id of an available image (images_list)'),
      sshKeyIds: z
        .array(ref('sshKey', 'An SSH key id'))
        .optional()
        .describe('Keys root logs in with (ssh_keys_list); omitted: all of the account keys'),
      ...waiting,
    },
    output: action,
    run: async (args, context) => {
      const body = { image: args.image, ...(args.sshKeyIds ? { sshKeyIds: args.sshKeyIds } : {}) };
      const started = await unwrap(
        context.api.POST('/api/services/{id}/instance/rebuild', { params: { path: { id: args.serviceId } }, body }),
      );
      return settle(started, args, context);
    },
  }),
  defineTool({
    name: 'vps_snapshot',
    title: 'Snapshot a VPS',
    description:
      'Copies a VPS disk (live when it runs) into a snapshot image of the account, which vps_rebuild takes as its image. Waits for the action (progress notifications) unless wait is false; the result is the action, with the image id and the consistency reached.',
    scope: 'write',
    annotations: writes({ destructive: false, idempotent: false }),
    input: { serviceId, name: z.string().min(1).max(100).describe('What the snapshot is called'), ...waiting },
    output: action,
    run: async (args, context) => {
      const params = { params: { path: { id: args.serviceId } }, body: { name: args.name } };
      return settle(await unwrap(context.api.POST('/api/services/{id}/instance/snapshots', params)), args, context);
    },
  }),
  defineTool({
    name: 'vps_backups_list',
    title: 'VPS backups',
    description:
      'The daily backups of a VPS (kept off the hypervisor), newest first: status (running, available, failed), size and consistency (filesystem or crash). vps_backup_restore takes an available one.',
    scope: 'read',
    annotations: READS,
    input: { serviceId, ...paging },
    output: pageOf(backup),
    run: ({ serviceId, ...query }, { api }) =>
      unwrap(api.GET('/api/services/{id}/instance/backups', { params: { path: { id: serviceId }, query } })),
  }),
  defineTool({
    name: 'vps_backup_restore',
    title: 'Restore a VPS from a backup',
    description:
      'Replaces the VPS disk with one of its backups (vps_backups_list, status available) and boots it: everything written since the backup is lost. Ask the user to confirm first. Waits for the action (progress notifications) unless wait is false.',
    scope: 'write',
    annotations: writes({ destructive: true, idempotent: false }),
    input: { serviceId, backupId: uuid('The backup id (from vps_backups_list)'), ...waiting },
    output: action,
    run: async (args, context) => {
      const params = { params: { path: { id: args.serviceId, backupId: args.backupId } } };
      return settle(await unwrap(context.api.POST('/api/services/{id}/instance/backups/{backupId}/restore', params)), args, context);
    },
  }),
  defineTool({
    name: 'vps_actions_list',
    title: 'VPS action history',
    description: 'The power actions and rebuilds of a VPS, newest first, with how each ended (status, error).',
    scope: 'read',
    annotations: READS,
    input: { serviceId, ...paging },
    output: pageOf(action),
    run: ({ serviceId, ...query }, { api }) =>
      unwrap(api.GET('/api/services/{id}/instance/actions', { params: { path: { id: serviceId }, query } })),
  }),
  defineTool({
    name: 'vps_action_get',
    title: 'Get a VPS action',
    description: 'One action of a VPS by id: running, succeeded or failed (with the error).',
    scope: 'read',
    annotations: READS,
    input: { serviceId, actionId: uuid('The action id') },
    output: action,
    run: ({ serviceId, actionId }, { api }) =>
      unwrap(api.GET('/api/services/{id}/instance/actions/{actionId}', { params: { path: { id: serviceId, actionId } } })),
  }),
  defineTool({
    name: 'vps_rdns_set',
    title: 'Set the reverse DNS of a VPS address',
    description:
      "Sets what one of the VPS's public addresses (service_get: instance.addresses) resolves back to (its PTR), served by the provider's nameservers at once; ptr null gives the default back (the VPS's hostname in the provider's domain, or none). Mail servers want it to match a name whose A or AAAA record is that address. unsupported_network_mode: the VPS has no public address of its own.",
    scope: 'write',
    annotations: writes({ destructive: true, idempotent: true }),
    input: {
      serviceId,
      ip: z.string().describe("One of the VPS's addresses (instance.addresses[].ip)"),
      ptr: z.string().nullable().describe('A host name, e.g. mail.example.com; null: the default'),
    },
    output: address,
    run: ({ serviceId: id, ip, ptr }, { api }) =>
      unwrap(api.PUT('/api/services/{id}/instance/rdns', { params: { path: { id } }, body: { ip, ptr } })),
  }),
  defineTool({
    name: 'images_list',
    title: 'List images',
    description: 'Images a VPS can be rebuilt from: the system images (type system) and the account snapshots (type snapshot).',
    scope: 'read',
    annotations: READS,
    input: { ...paging },
    output: pageOf(image),
    run: (query, { api }) => unwrap(api.GET('/api/images', { params: { query } })),
  }),
  defineTool({
    name: 'snapshot_delete',
    title: 'Delete a snapshot',
    description: 'Deletes a snapshot image of the account (images_list, type snapshot) and its disk. Ask the user to confirm first.',
    scope: 'write',
    annotations: writes({ destructive: true, idempotent: true }),
    input: { imageId: ref('snapshot', 'The snapshot image id (images_list)') },
    output: z.looseObject({ id: z.string(), deleted: z.boolean() }),
    run: async ({ imageId }, { api }) => {
      await unwrap(api.DELETE('/api/images/{id}', { params: { path: { id: imageId } } }));
      return { id: imageId, deleted: true };
    },
  }),
  defineTool({
    name: 'storage_credentials_get',
    title: 'Show object storage credentials',
    description:
      'SHOWS A SECRET: the S3 access key and secret key of an object storage service. This tool exists to show them; use it only when the user asks for the credentials, and do not repeat the secret elsewhere. The viewing is recorded in the activity log. Needs the write scope.',
    scope: 'write',
    annotations: READS,
    input: { serviceId },
    output: storageCredentials,
    run: ({ serviceId }, { api }) =>
      unwrap(api.GET('/api/services/{id}/object-storage/credentials', { params: { path: { id: serviceId } } })),
  }),
];
