import { z } from 'zod';
import { type Firewall, unenforcedAttachments, unwrap } from '@hosting-account/sdk';
import { firewall, pageOf, paging } from '../schemas';
import { ref } from '../refs';
import { defineTool, READS, ToolContext, writes } from '../tool';
import { waitForFirewallWithProgress } from '../wait';

const firewallId = ref('firewall', 'The firewall id (from firewalls_list)');
const rules = z
  .array(
    z.object({
      direction: z.enum(['in', 'out']).describe('in: traffic to the VPS; out: traffic the VPS sends'),
      protocol: z.enum(['tcp', 'udp', 'icmp']).describe('icmp covers ping, over IPv4 and IPv6'),
      port: z
        .string()
        .optional()
        .describe(
          "A port (80) or range (8000-8100): the VPS's port for in, the remote one for out. Leave out for every port, and always for icmp",
        ),
      addresses: z
        .array(z.string())
        .min(1)
        .describe('IPv4 and IPv6 CIDRs of the other side (sources for in, destinations for out); ["0.0.0.0/0", "::/0"] is everywhere'),
      description: z.string().max(255).optional(),
    }),
  )
  .describe(
    'Once applied, inbound traffic no in rule allows is dropped (answers to allowed connections pass); outbound passes unless some firewall of the VPS has an out rule',
  );
const serviceIds = z.array(ref('vps', 'A VPS service id (services_list, type vps)')).min(1).max(100).describe('The VPSes');
const waiting = {
  wait: z.boolean().optional().describe("Wait until each VPS's hypervisor enforces the rules, with progress notifications (default true)"),
  timeoutSeconds: z.number().int().min(1).max(600).optional().describe('Give up waiting after this long (default 120); the API goes on'),
};

/** The firewall as answered, or once its rules are enforced on `serviceIds` (every VPS when undefined). */
function settle(changed: Firewall, args: { wait?: boolean; timeoutSeconds?: number }, context: ToolContext, ids?: string[]) {
  if (args.wait === false || unenforcedAttachments(changed, ids).length === 0) return changed;
  return waitForFirewallWithProgress(changed, ids, args.timeoutSeconds ?? 120, context);
}

/** Cloud firewalls: rules enforced at the hypervisor of the VPSes a firewall is applied to. */
export const FIREWALL_TOOLS = [
  defineTool({
    name: 'firewalls_list',
    title: 'List firewalls',
    description:
      'The cloud firewalls of the account, newest first: rules, and the VPSes each is applied to with their status (pending, applied, failed).',
    scope: 'read',
    annotations: READS,
    input: { ...paging },
    output: pageOf(firewall),
    run: (query, { api }) => unwrap(api.GET('/api/firewalls', { params: { query } })),
  }),
  defineTool({
    name: 'firewall_get',
    title: 'Get a firewall',
    description:
      "One firewall by id: its rules, and each VPS it is applied to with its status: pending until the VPS's hypervisor enforces the current rules, then applied; failed while it could not (the API retries).",
    scope: 'read',
    annotations: READS,
    input: { firewallId },
    output: firewall,
    run: ({ firewallId: id }, { api }) => unwrap(api.GET('/api/firewalls/{id}', { params: { path: { id } } })),
  }),
  defineTool({
    name: 'firewall_create',
    title: 'Create a firewall',
    description:
      'Creates a cloud firewall (name unique in the account) with its rules. It changes nothing until firewall_apply applies it to VPSes; then inbound traffic no in rule allows is dropped, so keep a rule for what the user reaches the VPS by (SSH: tcp 22).',
    scope: 'write',
    annotations: writes({ destructive: false, idempotent: false }),
    input: { name: z.string().min(1).max(64).describe('A name, unique in the account'), rules: rules.optional() },
    output: firewall,
    run: (body, { api }) => unwrap(api.POST('/api/firewalls', { body })),
  }),
  defineTool({
    name: 'firewall_update',
    title: 'Rename a firewall or replace its rules',
    description:
      "Renames a firewall and/or REPLACES EVERY RULE with the list given (to add or remove one, send firewall_get's rules with the change). The VPSes it is applied to follow within seconds; waits until they enforce the new rules unless wait is false. Ask the user to confirm first: a rule dropped may cut them off (SSH).",
    scope: 'write',
    annotations: writes({ destructive: true, idempotent: true }),
    input: { firewallId, name: z.string().min(1).max(64).optional().describe('The new name'), rules: rules.optional(), ...waiting },
    output: firewall,
    run: async ({ firewallId: id, wait, timeoutSeconds, ...body }, context) => {
      const changed = await unwrap(context.api.PATCH('/api/firewalls/{id}', { params: { path: { id } }, body }));
      return settle(changed, { wait, timeoutSeconds }, context);
    },
  }),
  defineTool({
    name: 'firewall_apply',
    title: 'Apply a firewall to VPSes',
    description:
      'Applies a firewall to VPSes of the account: their hypervisor then drops inbound traffic that no rule of their firewalls allows. Ask the user to confirm first. A VPS in user networking answers unsupported_network_mode (no firewall can be enforced there). Waits until each VPS enforces the rules (progress notifications) unless wait is false.',
    scope: 'write',
    annotations: writes({ destructive: true, idempotent: true }),
    input: { firewallId, serviceIds, ...waiting },
    output: firewall,
    run: async ({ firewallId: id, serviceIds: ids, ...args }, context) => {
      const body = { serviceIds: [...new Set(ids)] };
      return settle(
        await unwrap(context.api.POST('/api/firewalls/{id}/apply', { params: { path: { id } }, body })),
        args,
        context,
        body.serviceIds,
      );
    },
  }),
  defineTool({
    name: 'firewall_remove',
    title: 'Remove a firewall from VPSes',
    description:
      'Removes a firewall from VPSes; it takes effect within seconds. A VPS left with no firewall lets every packet through. Ask the user to confirm first.',
    scope: 'write',
    annotations: writes({ destructive: true, idempotent: true }),
    input: { firewallId, serviceIds },
    output: firewall,
    run: ({ firewallId: id, serviceIds: ids }, { api }) =>
      unwrap(api.POST('/api/firewalls/{id}/remove', { params: { path: { id } }, body: { serviceIds: [...new Set(ids)] } })),
  }),
  defineTool({
    name: 'firewall_delete',
    title: 'Delete a firewall',
    description:
      'Deletes a firewall applied to no VPS (firewall_in_use otherwise: firewall_remove it from them first). Ask the user to confirm first.',
    scope: 'write',
    annotations: writes({ destructive: true, idempotent: true }),
    input: { firewallId },
    output: z.looseObject({ id: z.string(), deleted: z.boolean() }),
    run: async ({ firewallId: id }, { api }) => {
      await unwrap(api.DELETE('/api/firewalls/{id}', { params: { path: { id } } }));
      return { id, deleted: true };
    },
  }),
];
