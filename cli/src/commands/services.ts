import { Command, Option } from 'commander';
import { HostingClient, listAll, Schemas, unwrap } from '@hosting-account/sdk';
import { examples, session } from '../command-context';
import { Column, format, printData, printList, printObject } from '../output';
import { resolveServiceId } from '../service-ref';

type Service = Schemas['ServiceResponse'];
type Product = Pick<Schemas['ProductResponse'], 'slug' | 'name'>;

export const SERVICE_COLUMNS: Column<Service>[] = [
  { header: 'ID', value: (s) => s.id },
  { header: 'NAME', value: (s) => s.name },
  { header: 'TYPE', value: (s) => s.type },
  { header: 'STATUS', value: (s) => s.status, status: true },
  { header: 'POWER', value: (s) => s.instance?.powerState, status: true },
  { header: 'IPV4', value: (s) => s.instance?.ipv4 },
  { header: 'SSH', value: sshEndpoint },
  { header: 'PRICE', value: (s) => `${s.price} ${s.currency}/${s.billingCycle}` },
];

/** Where a VPS's SSH server answers, `host:port` (a user-mode VPS has no address of its own, only a forwarded port). */
export function sshEndpoint(service: Service): string | undefined {
  const ssh = service.instance?.ssh;
  return ssh ? `${ssh.host}:${ssh.port}` : undefined;
}

/** How to log in to a VPS, as a command to paste. */
export function sshCommand(service: Service): string | undefined {
  const ssh = service.instance?.ssh;
  return ssh ? `ssh -p ${ssh.port} root@${ssh.host}` : undefined;
}

/** Fields of one type of service only; the others are every type's (a VPS's power state shows `-` on object storage). */
const ONLY: Record<string, Service['type']> = {
  SSH: 'vps',
  Firewalls: 'vps',
  Volumes: 'vps',
  'Reverse DNS': 'vps',
  Size: 'volume',
  'Volume state': 'volume',
  'Attached to': 'volume',
  Device: 'volume',
};
const NOT_FOR_VOLUMES = new Set(['Power state', 'IPv4', 'IPv6']);

function serviceFields(type: Service['type'], product?: Product): Column<Service>[] {
  const fields: Column<Service>[] = [
    { header: 'ID', value: (s) => s.id },
    { header: 'Name', value: (s) => s.name },
    { header: 'Type', value: (s) => s.type },
    { header: 'Status', value: (s) => s.status, status: true },
    { header: 'Power state', value: (s) => s.instance?.powerState, status: true },
    { header: 'IPv4', value: (s) => s.instance?.ipv4 },
    { header: 'IPv6', value: (s) => s.instance?.ipv6 },
    { header: 'SSH', value: sshCommand },
    { header: 'Reverse DNS', value: (s) => s.instance?.addresses?.map((a) => `${a.ip} ${a.ptr ?? '-'}`).join(', ') },
    { header: 'Firewalls', value: (s) => s.instance?.firewalls.map((f) => `${f.name} (${f.status})`).join(', ') },
    { header: 'Volumes', value: (s) => s.instance?.volumes.map((v) => `${v.name} (${v.state}, ${v.device ?? 'no device'})`).join(', ') },
    { header: 'Size', value: (s) => (s.volume ? `${s.volume.sizeGb} GiB` : undefined) },
    { header: 'Volume state', value: (s) => s.volume?.state, status: true },
    { header: 'Attached to', value: (s) => s.volume?.attachedTo },
    { header: 'Device', value: (s) => s.volume?.device },
    { header: 'Region', value: (s) => s.instance?.region ?? s.volume?.region },
    { header: 'Product', value: (s) => (product ? `${product.slug} (${product.name})` : s.productId) },
    { header: 'Price', value: (s) => `${s.price} ${s.currency}` },
    { header: 'Billing cycle', value: (s) => s.billingCycle },
    { header: 'Next due', value: (s) => s.nextDueDate },
    { header: 'Created', value: (s) => s.createdAt },
  ];
  return fields.filter((field) => (ONLY[field.header] ?? type) === type && !(type === 'volume' && NOT_FOR_VOLUMES.has(field.header)));
}

/** The product's slug and name for a person to read; its id when the catalogue cannot say. */
async function productOf(api: HostingClient, service: Service): Promise<Product | undefined> {
  return unwrap(api.GET('/api/products/{id}', { params: { path: { id: service.productId } } })).catch(() => undefined);
}

export function servicesCommand(): Command {
  const services = new Command('services').description('List and inspect your services (VPS, volumes and object storage)');

  services
    .command('list')
    .description('List services, newest first')
    .addOption(new Option('--type <type>', 'only services of this type').choices(['vps', 'volume', 'object_storage']))
    .addOption(
      new Option('--status <status>', 'only services in this billing state').choices([
        'pending',
        'active',
        'suspended',
        'cancelled',
        'terminated',
      ]),
    )
    .addHelpText(
      'after',
      examples('hostctl services list', 'hostctl services list --type vps -o json', 'hostctl services list --status active --no-header'),
    )
    .action(async (options: { type?: Service['type']; status?: Service['status'] }, command: Command) => {
      const { api, out } = session(command);
      const rows = await listAll(api, '/api/services', { type: options.type, status: options.status });
      printList(rows, SERVICE_COLUMNS, out);
    });

  services
    .command('get')
    .description('Show one service')
    .argument('<id>', 'service id, or its name')
    .addHelpText('after', examples('hostctl services get web-01', 'hostctl services get 4f0c2a8e-... -o yaml'))
    .action(async (reference: string, _options: unknown, command: Command) => {
      const { api, out } = session(command);
      const id = await resolveServiceId(api, reference);
      const service = await unwrap(api.GET('/api/services/{id}', { params: { path: { id } } }));
      // JSON and YAML are the API's object as it is, for scripts; the table is for a person.
      if (format(out) !== 'table') return printData(service, format(out));
      printObject(service, serviceFields(service.type, await productOf(api, service)), out);
    });

  return services;
}
