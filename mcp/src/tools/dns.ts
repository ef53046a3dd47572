import { z } from 'zod';
import { exportDnsZone, importDnsZone, unwrap } from '@hosting-account/sdk';
import { dnsRecord, dnsZone, pageOf, paging, uuid } from '../schemas';
import { untrusted } from '../untrusted';
import { ref } from '../refs';
import { defineTool, READS, writes } from '../tool';

const zoneId = ref('zone', 'The zone id (from dns_zones_list)');
const recordId = uuid('The record id (from dns_records_list)');
const RECORD_TYPES = ['A', 'AAAA', 'CNAME', 'MX', 'TXT', 'SRV', 'CAA', 'NS'] as const;
const port16 = (what: string) => z.number().int().min(0).max(65535).nullable().optional().describe(what);
const fields = {
  ttl: z.number().int().min(60).max(604800).optional().describe('Seconds (default 3600); every record of the same name and type gets it'),
  priority: port16('MX and SRV (required for them); null for other types'),
  weight: port16('SRV (required)'),
  port: port16('SRV (required)'),
};
const name = z.string().max(254).describe('Relative to the zone: @ (or empty) for the zone itself, www, *.dev, _dmarc');
const value = z
  .string()
  .max(4096)
  .describe(
    'An address (A, AAAA); a host name (CNAME, NS, MX and SRV targets: absolute, the final dot optional); the text of a TXT (the API quotes and splits it); 0 issue "letsencrypt.org" for a CAA',
  );
const deleted = z.looseObject({ id: z.string(), deleted: z.boolean() });

/** DNS: the account's zones (one per domain) and their records, served by the provider's nameservers. */
export const DNS_TOOLS = [
  defineTool({
    name: 'dns_zones_list',
    title: 'List DNS zones',
    description:
      "The account's DNS zones, newest first: the domain, the provider's nameservers (set at the domain's registrar) and the serial.",
    scope: 'read',
    annotations: READS,
    input: { ...paging },
    output: pageOf(dnsZone),
    run: (query, { api }) => unwrap(api.GET('/api/dns/zones', { params: { query } })),
  }),
  defineTool({
    name: 'dns_zone_get',
    title: 'Get a DNS zone',
    description: "One DNS zone by id: its domain, the provider's nameservers and the SOA serial (raised by every change).",
    scope: 'read',
    annotations: READS,
    input: { zoneId },
    output: dnsZone,
    run: ({ zoneId: id }, { api }) => unwrap(api.GET('/api/dns/zones/{id}', { params: { path: { id } } })),
  }),
  defineTool({
    name: 'dns_zone_create',
    title: 'Create a DNS zone',
    description:
      "Creates the DNS zone of a domain (example.com). Its records are found once the domain's registrar lists the nameservers it returns: tell the user to set them there. zone_exists when the domain (or a zone within or around it) is in another account.",
    scope: 'write',
    annotations: writes({ destructive: false, idempotent: false }),
    input: { name: z.string().min(1).max(254).describe('The domain, e.g. example.com') },
    output: dnsZone,
    run: (body, { api }) => unwrap(api.POST('/api/dns/zones', { body })),
  }),
  defineTool({
    name: 'dns_zone_delete',
    title: 'Delete a DNS zone',
    description:
      "Deletes a DNS zone and every record of it: the provider's nameservers stop answering for the domain, so its website and mail stop being found. Ask the user to confirm first (dns_zone_export keeps a copy).",
    scope: 'write',
    annotations: writes({ destructive: true, idempotent: true }),
    input: { zoneId },
    output: deleted,
    run: async ({ zoneId: id }, { api }) => {
      await unwrap(api.DELETE('/api/dns/zones/{id}', { params: { path: { id } } }));
      return { id, deleted: true };
    },
  }),
  defineTool({
    name: 'dns_records_list',
    title: 'List DNS records',
    description:
      'The records of a DNS zone: name (relative, @ the zone), type, TTL, value, and priority, weight and port where the type has them.',
    scope: 'read',
    annotations: READS,
    input: { zoneId, ...paging },
    output: pageOf(dnsRecord),
    run: ({ zoneId: id, ...query }, { api }) => unwrap(api.GET('/api/dns/zones/{id}/records', { params: { path: { id }, query } })),
  }),
  defineTool({
    name: 'dns_record_create',
    title: 'Add a DNS record',
    description:
      'Adds a record to a DNS zone. The API refuses (invalid_input, naming the field) a CNAME at the zone itself or beside another record, NS at the zone itself, a duplicate, an address as an MX or SRV target, priority on a type without it.',
    scope: 'write',
    annotations: writes({ destructive: false, idempotent: false }),
    input: { zoneId, name, type: z.enum(RECORD_TYPES), value, ...fields },
    output: dnsRecord,
    run: ({ zoneId: id, ...body }, { api }) => unwrap(api.POST('/api/dns/zones/{id}/records', { params: { path: { id } }, body })),
  }),
  defineTool({
    name: 'dns_record_update',
    title: 'Change a DNS record',
    description:
      'Changes a record: the fields given replace the stored ones, the others stay (a new type clears priority, weight and port unless given). The old value stops being served: ask the user to confirm a change of what a live site or mail uses.',
    scope: 'write',
    annotations: writes({ destructive: true, idempotent: true }),
    input: {
      zoneId,
      recordId,
      name: name.optional(),
      type: z.enum(RECORD_TYPES).optional(),
      value: value.optional(),
      ...fields,
    },
    output: dnsRecord,
    run: ({ zoneId: id, recordId: rid, ...body }, { api }) =>
      unwrap(api.PATCH('/api/dns/zones/{id}/records/{recordId}', { params: { path: { id, recordId: rid } }, body })),
  }),
  defineTool({
    name: 'dns_record_delete',
    title: 'Delete a DNS record',
    description: 'Deletes a record of a DNS zone: the nameservers stop serving it. Ask the user to confirm first.',
    scope: 'write',
    annotations: writes({ destructive: true, idempotent: true }),
    input: { zoneId, recordId },
    output: deleted,
    run: async ({ zoneId: id, recordId: rid }, { api }) => {
      await unwrap(api.DELETE('/api/dns/zones/{id}/records/{recordId}', { params: { path: { id, recordId: rid } } }));
      return { id: rid, deleted: true };
    },
  }),
  defineTool({
    name: 'dns_zone_export',
    title: 'Export a DNS zone',
    description: 'A DNS zone as a BIND zone file (SOA, NS and every record), to keep a copy or to edit and give to dns_zone_import.',
    scope: 'read',
    annotations: READS,
    input: { zoneId },
    output: z.looseObject({ zoneId: z.string(), zoneFile: untrusted(z.string().describe('The BIND zone file')) }),
    run: async ({ zoneId: id }, { api }) => ({ zoneId: id, zoneFile: await exportDnsZone(api, id) }),
  }),
  defineTool({
    name: 'dns_zone_import',
    title: 'Replace a DNS zone by a zone file',
    description:
      "REPLACES EVERY RECORD of a DNS zone by those of a BIND zone file (records the file lacks are deleted), or changes nothing when any line is refused: invalid_input then names each one (field 'line 12'). Its SOA and the provider's NS lines are skipped. Ask the user to confirm first; dns_zone_export gives the current file.",
    scope: 'write',
    annotations: writes({ destructive: true, idempotent: true }),
    input: { zoneId, zoneFile: z.string().min(1).max(1_000_000).describe('The zone file, as text ($ORIGIN, $TTL and one record a line)') },
    output: dnsZone,
    run: ({ zoneId: id, zoneFile }, { api }) => importDnsZone(api, id, zoneFile),
  }),
];
