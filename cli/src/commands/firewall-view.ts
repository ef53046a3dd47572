import { HostingClient, Schemas, unenforcedAttachments, waitForFirewall } from '@hosting-account/sdk';
import { Column, format, paint, printData, printList, printObject, OutputOptions } from '../output';
import { progressLine } from '../progress';
import { vpsNames } from '../service-ref';

export type Firewall = Schemas['FirewallResponse'];
type Rule = Schemas['FirewallRuleResponse'];
type Attachment = Firewall['appliedTo'][number];

/** `applied` once every VPS enforces the rules, else the worst of `failed` and `pending`; nothing when applied nowhere. */
export function enforcement(firewall: Firewall): string | undefined {
  const statuses = new Set(firewall.appliedTo.map((a) => a.status));
  return statuses.has('failed') ? 'failed' : statuses.has('pending') ? 'pending' : statuses.size ? 'applied' : undefined;
}

export const FIREWALL_COLUMNS: Column<Firewall>[] = [
  { header: 'ID', value: (f) => f.id },
  { header: 'NAME', value: (f) => f.name },
  { header: 'RULES', value: (f) => f.rules.length },
  { header: 'APPLIED TO', value: (f) => f.appliedTo.length },
  { header: 'STATUS', value: enforcement, status: true },
  { header: 'CREATED', value: (f) => f.createdAt },
];

export const RULE_COLUMNS: Column<Rule>[] = [
  { header: 'DIRECTION', value: (r) => r.direction },
  { header: 'PROTOCOL', value: (r) => r.protocol },
  { header: 'PORT', value: (r) => r.port ?? (r.protocol === 'icmp' ? undefined : 'any') },
  { header: 'ADDRESSES', value: (r) => r.addresses },
  { header: 'DESCRIPTION', value: (r) => r.description },
];

/** A firewall for a person: its fields, its rules and the VPSes it is applied to; for -o json|yaml the API's object. */
export async function showFirewall(api: HostingClient, firewall: Firewall, out: OutputOptions): Promise<void> {
  const kind = format(out);
  if (kind !== 'table') return printData(firewall, kind);
  printObject(
    firewall,
    [
      { header: 'ID', value: (f) => f.id },
      { header: 'Name', value: (f) => f.name },
      { header: 'Created', value: (f) => f.createdAt },
      { header: 'Updated', value: (f) => f.updatedAt },
    ],
    out,
  );
  const section = (title: string) => process.stdout.write(`\n${paint(title, 'bold')}\n`);
  section('Rules:');
  if (firewall.rules.length) printList(firewall.rules, RULE_COLUMNS, out);
  else process.stdout.write('none: on its VPSes, inbound traffic no other firewall allows is dropped\n');
  section('Applied to:');
  if (!firewall.appliedTo.length) return void process.stdout.write('no VPS\n');
  const names = await vpsNames(api);
  const columns: Column<Attachment>[] = [
    { header: 'VPS', value: (a) => names.get(a.serviceId) },
    { header: 'ID', value: (a) => a.serviceId },
    { header: 'STATUS', value: (a) => a.status, status: true },
  ];
  printList(firewall.appliedTo, columns, out);
}

/** Waits until the firewall's rules are enforced on every VPS it is applied to (or on `serviceIds`), with a progress line on a terminal. */
export async function waitEnforced(
  api: HostingClient,
  firewall: Firewall,
  timeoutSeconds: number,
  serviceIds?: string[],
): Promise<Firewall> {
  const waiting = unenforcedAttachments(firewall, serviceIds);
  if (!waiting.length) return firewall;
  const progress = progressLine(`firewall ${firewall.name} on ${waiting.length === 1 ? waiting[0].serviceId : `${waiting.length} VPSes`}`);
  try {
    return await waitForFirewall(api, firewall.id, { serviceIds, timeoutMs: timeoutSeconds * 1000, intervalMs: 500 });
  } finally {
    progress.stop();
  }
}
