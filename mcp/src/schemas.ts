import { z } from 'zod';
import { untrusted } from './untrusted';

// Output schemas: the fields an agent relies on. Objects are loose: the API may add fields, and a
// result carries them through. Every field a customer or a third party writes is `untrusted`:
// results fence it (a new free-text field of the API must be added here to be fenced).

const timestamp = z.string().describe('ISO 8601, UTC');
const nullableTimestamp = timestamp.nullable();
const text = (what: string) => untrusted(z.string().describe(what));
/** An error of an action or a backup: the message may carry a hypervisor's or a guest agent's words. */
const failure = z.looseObject({ code: z.string(), message: text('What went wrong') });

/** One page of a list: `{data, page, pageSize, total, totalPages}`. */
export function pageOf<T extends z.ZodType>(item: T) {
  return z.looseObject({
    data: z.array(item),
    page: z.number().int(),
    pageSize: z.number().int(),
    total: z.number().int(),
    totalPages: z.number().int(),
  });
}

/** A VPS's public address and what it resolves back to. */
export const address = z.looseObject({
  ip: z.string(),
  ptr: text('The reverse DNS (PTR) host name: set by the customer (vps_rdns_set), else the default').nullable(),
});

export const service = z.looseObject({
  id: z.string(),
  name: text('The name the customer gave it'),
  type: z.string().describe('vps, volume or object_storage'),
  status: z.string().describe('pending, active, suspended, cancelled or terminated'),
  instance: z
    .looseObject({
      powerState: z.string(),
      ipv4: z.string().nullable(),
      ipv6: z.string().nullable(),
      region: z.string(),
      firewalls: z
        .array(
          z.looseObject({
            id: z.string(),
            name: text('The name the customer gave it'),
            status: z.string().describe('pending, applied or failed'),
          }),
        )
        .optional()
        .describe('Cloud firewalls applied (firewall_get); none: every packet passes'),
      volumes: z
        .array(
          z.looseObject({
            id: z.string().describe('The volume service id (volume_get)'),
            name: text('The name the customer gave it'),
            sizeGb: z.number().int(),
            state: z.string(),
            device: z.string().nullable(),
          }),
        )
        .optional()
        .describe('Volumes attached to the VPS, each at its device path'),
      addresses: z
        .array(address)
        .optional()
        .describe('The public addresses (IPv4 first) with their reverse DNS; none in user networking and once terminated'),
    })
    .nullable()
    .describe('The VPS instance; null for other services'),
  volume: z
    .looseObject({
      sizeGb: z.number().int(),
      region: z.string(),
      state: z.string().describe('detached, attaching, attached, detaching or resizing'),
      attachedTo: z.string().nullable().describe('The VPS service id it is attached to'),
      device: z
        .string()
        .nullable()
        .describe(
          "Where the VPS's Linux finds it while attached (/dev/disk/by-id/virtio-vol-...), stable across reboots: use it in /etc/fstab",
        ),
    })
    .nullable()
    .optional()
    .describe('The block device of a volume service; null for other services'),
  createdAt: timestamp,
});

const progress = z.number().int().describe('How far the action is, 0-100 (100 once succeeded); an estimate that never goes back');
const step = z.string().nullable().describe('What the action is doing now ("copying the disk"); null once it has ended');

export const action = z.looseObject({
  id: z.string(),
  serviceId: z.string(),
  type: z.string().describe('start, stop, reboot, rebuild, snapshot, rescue, unrescue'),
  status: z.string().describe('running, succeeded or failed'),
  startedAt: timestamp,
  finishedAt: nullableTimestamp,
  progress: progress,
  step: step,
  error: failure.nullable(),
  notice: failure.nullable().optional(),
});

export const volumeAction = z.looseObject({
  id: z.string(),
  serviceId: z.string().describe('The volume service'),
  type: z.string().describe('attach, detach or resize'),
  status: z.string().describe('running, succeeded or failed (the volume is then as it was before)'),
  vpsServiceId: z.string().nullable().describe('The VPS attached to or detached from; null for a resize'),
  sizeGb: z.number().int().nullable().describe('The new size of a resize'),
  startedAt: timestamp,
  finishedAt: nullableTimestamp,
  progress: progress,
  step: step,
  error: failure.nullable(),
});

export const backup = z.looseObject({
  id: z.string(),
  createdAt: timestamp,
  status: z.string(),
  sizeBytes: z.number().nullable(),
  consistency: z.string().nullable(),
  error: failure.nullable().optional(),
});

export const image = z.looseObject({
  id: z.string(),
  slug: z.string(),
  name: text("The image's name (a snapshot's is the customer's)"),
  osFamily: z.string(),
  status: z.string(),
});

export const sshKey = z.looseObject({
  id: z.string(),
  name: text('The name the customer gave the key'),
  publicKey: text('The public key line, with its comment').optional(),
  fingerprint: z.string(),
  type: z.string(),
  createdAt: timestamp,
});

export const firewallRule = z.looseObject({
  direction: z.enum(['in', 'out']),
  protocol: z.enum(['tcp', 'udp', 'icmp']),
  port: z.string().optional().describe('A port or range (8000-8100); absent: every port (always for icmp)'),
  addresses: z.array(z.string()).describe('IPv4 and IPv6 CIDRs of the other side'),
  description: text('What the customer wrote about the rule').optional(),
});

export const firewall = z.looseObject({
  id: z.string(),
  name: text('The name the customer gave it'),
  rules: z.array(firewallRule),
  appliedTo: z
    .array(z.looseObject({ serviceId: z.string(), status: z.string().describe('pending, applied (enforced) or failed (retried)') }))
    .describe('The VPSes it is applied to'),
  createdAt: timestamp,
  updatedAt: timestamp,
});

export const dnsZone = z.looseObject({
  id: z.string(),
  name: text('The domain, lower case, without the final dot; an internationalised name in punycode (xn--)'),
  nameservers: z.array(z.string()).describe("The provider's nameservers: the domain's registrar must list them"),
  serial: z.number().int().describe('The SOA serial; every change raises it'),
  createdAt: timestamp,
});

export const dnsRecord = z.looseObject({
  id: z.string(),
  name: text('Relative to the zone; @ is the zone itself'),
  type: z.string().describe('A, AAAA, CNAME, MX, TXT, SRV, CAA or NS'),
  ttl: z.number().int().describe('Seconds'),
  value: text("The record's data: an address, an absolute target name with the final dot, a TXT's text, a CAA's flags tag and value"),
  priority: z.number().int().nullable().describe('MX and SRV'),
  weight: z.number().int().nullable().describe('SRV'),
  port: z.number().int().nullable().describe('SRV'),
});

export const ticket = z.looseObject({
  id: z.string(),
  reference: z.string(),
  subject: text('Short summary'),
  status: z.string().describe('open, answered, customer_reply or closed'),
  priority: z.string(),
  department: z.string(),
  serviceId: z.string().nullable(),
  createdAt: timestamp,
  updatedAt: timestamp,
});

export const ticketMessage = z.looseObject({
  id: z.string(),
  author: z.looseObject({ type: z.string(), name: text("The author's name") }),
  message: text('The message'),
  attachments: z.array(z.looseObject({ id: z.string(), filename: text('The file name'), size: z.number() })),
  createdAt: timestamp,
});

export const ticketWithMessages = ticket.extend({ messages: z.array(ticketMessage) });

export const notification = z.looseObject({
  id: z.string(),
  type: z.string(),
  severity: z.string(),
  title: text('One line; may quote names and subjects'),
  body: text('May quote names, subjects and errors'),
  readAt: nullableTimestamp,
  createdAt: timestamp,
});

export const activityEntry = z.looseObject({
  id: z.string(),
  action: z.string().describe('<entity>.<verb>, e.g. instance.reboot'),
  actor: z.looseObject({
    type: z.string(),
    name: text('The account or API key name').nullable(),
    memberId: z.string().nullable().optional().describe('The member who acted (members_list); null for staff, the system and sign-ins'),
    email: text('The address of the login who acted').nullable().optional(),
  }),
  ip: z.string().nullable(),
  userAgent: text('The client (a family such as curl or Firefox for a sign-in that failed)').nullable(),
  status: z.string(),
  details: untrusted(z.record(z.string(), z.unknown()).describe('Facts of the entry; names, subjects and URLs in it')),
  createdAt: timestamp,
});

const role = z.string().describe('owner, admin, member or read_only');

export const member = z.looseObject({
  id: z.string(),
  email: text("The member's login address"),
  name: text("The member's display name"),
  role,
  joinedAt: timestamp,
});

export const invitation = z.looseObject({
  id: z.string(),
  email: text('The address invited'),
  role,
  invitedBy: z.string().nullable().describe('The member id of who sent it; null once they have left'),
  createdAt: timestamp,
  expiresAt: timestamp,
});

export const webhook = z.looseObject({
  id: z.string(),
  url: text('The endpoint, shown as its origin only: a path or query may carry a token'),
  description: text('What the customer wrote about it').nullable().optional(),
  events: z.array(z.string()),
  enabled: z.boolean(),
  failingSince: nullableTimestamp,
  createdAt: timestamp,
});

export const delivery = z.looseObject({
  id: z.string(),
  eventType: z.string(),
  status: z.string(),
  attempts: z.number().int(),
  lastResponseCode: z.number().int().nullable(),
  lastError: text("The endpoint's answer or the network error").nullable(),
  createdAt: timestamp,
});

export const storageCredentials = z.looseObject({
  endpoint: z.string(),
  region: z.string(),
  bucket: z.string(),
  accessKeyId: z.string(),
  secretAccessKey: z.string(),
});

export const paging = {
  page: z.number().int().min(1).optional().describe('Page number, from 1'),
  pageSize: z.number().int().min(1).max(100).optional().describe('Items per page (1-100, default 10)'),
};

export const uuid = (what: string) => z.uuid().describe(what);
