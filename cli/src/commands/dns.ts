import { readFileSync } from 'node:fs';
import { Command, InvalidArgumentError } from 'commander';
import { exportDnsZone, importDnsZone, listAll, Schemas, unwrap } from '@hosting-account/sdk';
import { examples, session } from '../command-context';
import { resolveZoneId } from '../dns-zone-ref';
import { UsageError } from '../errors';
import { asFields, Column, format, printData, printDone, printList, printObject } from '../output';

type Zone = Schemas['ZoneResponse'];
type DnsRecord = Schemas['RecordResponse'];
type RecordType = DnsRecord['type'];

const RECORD_TYPES: RecordType[] = ['A', 'AAAA', 'CNAME', 'MX', 'TXT', 'SRV', 'CAA', 'NS'];
const zoneArgument = 'the zone: its name (example.com) or its id';

export const ZONE_COLUMNS: Column<Zone>[] = [
  { header: 'ID', value: (z) => z.id },
  { header: 'NAME', value: (z) => z.name },
  { header: 'SERIAL', value: (z) => z.serial },
  { header: 'NAMESERVERS', value: (z) => z.nameservers },
  { header: 'CREATED', value: (z) => z.createdAt },
];

export const RECORD_COLUMNS: Column<DnsRecord>[] = [
  { header: 'ID', value: (r) => r.id },
  { header: 'NAME', value: (r) => r.name },
  { header: 'TYPE', value: (r) => r.type },
  { header: 'TTL', value: (r) => r.ttl },
  { header: 'PRIORITY', value: (r) => r.priority },
  { header: 'WEIGHT', value: (r) => r.weight },
  { header: 'PORT', value: (r) => r.port },
  { header: 'VALUE', value: (r) => r.value },
];

/** `--type a` is `A`; a type the API does not have is a usage error (exit 2), nothing sent. */
function parseType(value: string): RecordType {
  const type = value.toUpperCase() as RecordType;
  if (!RECORD_TYPES.includes(type)) throw new InvalidArgumentError(`must be one of ${RECORD_TYPES.join(', ')}`);
  return type;
}

/** TTL, priority, weight and port: whole numbers; their ranges are the API's to check (its 400 names the field). */
function parseWholeNumber(value: string): number {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('must be a whole number');
  return Number(value);
}

interface RecordOptions {
  name?: string;
  type?: RecordType;
  value?: string;
  ttl?: number;
  priority?: number;
  weight?: number;
  port?: number;
}

/** The record options of `records add` and `records update`; `add` cannot do without a type and a value. */
function recordOptions(command: Command, add: boolean): Command {
  const typeHelp = `record type: ${RECORD_TYPES.join(', ')}`;
  const valueHelp =
    'an address (A, AAAA), a host name (CNAME, NS, MX, SRV; taken as absolute), the text of a TXT, 0 issue "ca.example" for a CAA';
  command.option('--name <name>', add ? 'relative to the zone: @ (the default) is the zone itself, www, *.dev, _dmarc' : 'the new name');
  if (add) command.requiredOption('--type <type>', typeHelp, parseType).requiredOption('--value <value>', valueHelp);
  else command.option('--type <type>', typeHelp, parseType).option('--value <value>', valueHelp);
  return command
    .option('--ttl <seconds>', 'time to live, 60 to 604800 (default 3600); every record of the name and type gets it', parseWholeNumber)
    .option('--priority <n>', 'MX and SRV', parseWholeNumber)
    .option('--weight <n>', 'SRV', parseWholeNumber)
    .option('--port <n>', 'SRV', parseWholeNumber);
}

/** The options given, as the API's fields (those not given are left out, so an update keeps them). */
function recordBody(options: RecordOptions): RecordOptions {
  const fields = ['name', 'type', 'value', 'ttl', 'priority', 'weight', 'port'] as const;
  return Object.fromEntries(fields.filter((f) => options[f] !== undefined).map((f) => [f, options[f]]));
}

export function dnsCommand(): Command {
  const dns = new Command('dns').description("DNS: your domains' zones and records, served by your provider's nameservers");
  dns.addCommand(zonesCommand());
  dns.addCommand(recordsCommand());

  dns
    .command('export')
    .description('Print a zone as a BIND zone file (redirect it to a file to keep or edit it)')
    .argument('<zone>', zoneArgument)
    .addHelpText('after', examples('hostctl dns export example.com > example.com.zone'))
    .action(async (reference: string, _options: unknown, command: Command) => {
      const { api, out } = session(command);
      const id = await resolveZoneId(api, reference);
      const zoneFile = await exportDnsZone(api, id);
      const kind = format(out);
      if (kind === 'table') process.stdout.write(zoneFile);
      else printData({ id, zoneFile }, kind);
    });

  dns
    .command('import')
    .description("Replace every record of a zone by a BIND zone file's: all of them, or nothing if any line is refused")
    .argument('<zone>', zoneArgument)
    .argument('<file>', 'the zone file ("-" for standard input)')
    .addHelpText(
      'after',
      "\nIts SOA and the NS lines naming your provider's nameservers are skipped. A refused line is named with its number (line 12: ...), exit 1.\n" +
        examples(
          'hostctl dns import example.com example.com.zone',
          'hostctl dns export example.com > example.com.zone; $EDITOR example.com.zone; hostctl dns import example.com example.com.zone',
        ),
    )
    .action(async (reference: string, file: string, _options: unknown, command: Command) => {
      let zoneFile: string;
      try {
        zoneFile = readFileSync(file === '-' ? 0 : file, 'utf8');
      } catch (error) {
        throw new UsageError(`cannot read the zone file ${file}: ${(error as Error).message}`);
      }
      const { api, out } = session(command);
      const id = await resolveZoneId(api, reference);
      const zone = await importDnsZone(api, id, zoneFile);
      printDone(`Zone ${zone.name}: records replaced by ${file === '-' ? 'standard input' : file}'s (serial ${zone.serial})`, zone, out);
    });

  return dns;
}

function zonesCommand(): Command {
  const zones = new Command('zones').alias('zone').description('DNS zones: one per domain, its records served by the nameservers it lists');

  zones
    .command('list')
    .description('List your zones, newest first')
    .addHelpText('after', examples('hostctl dns zones list', 'hostctl dns zones list -o json'))
    .action(async (_options: unknown, command: Command) => {
      const { api, out } = session(command);
      printList(await listAll(api, '/api/dns/zones'), ZONE_COLUMNS, out);
    });

  zones
    .command('get')
    .description('Show a zone: its nameservers and serial')
    .argument('<zone>', zoneArgument)
    .addHelpText('after', examples('hostctl dns zones get example.com', 'hostctl dns zones get example.com -o json'))
    .action(async (reference: string, _options: unknown, command: Command) => {
      const { api, out } = session(command);
      const id = await resolveZoneId(api, reference);
      printObject(await unwrap(api.GET('/api/dns/zones/{id}', { params: { path: { id } } })), asFields(ZONE_COLUMNS), out);
    });

  zones
    .command('create')
    .description("Create a zone for a domain; then set its nameservers at the domain's registrar")
    .argument('<name>', 'the domain, e.g. example.com')
    .addHelpText(
      'after',
      '\nA domain is in one account only: 409 zone_exists when it (or a zone within it, or around it) is already taken.\n' +
        examples('hostctl dns zones create example.com'),
    )
    .action(async (name: string, _options: unknown, command: Command) => {
      const { api, out } = session(command);
      const zone = await unwrap(api.POST('/api/dns/zones', { body: { name } }));
      printObject(zone, asFields(ZONE_COLUMNS), out);
      if (format(out) === 'table') process.stdout.write(`\nSet these nameservers at your registrar: ${zone.nameservers.join(', ')}\n`);
    });

  zones
    .command('delete')
    .description('Delete a zone and all its records: its nameservers stop answering for the domain')
    .argument('<zone>', zoneArgument)
    .addHelpText('after', examples('hostctl dns zones delete example.com'))
    .action(async (reference: string, _options: unknown, command: Command) => {
      const { api, out } = session(command);
      const id = await resolveZoneId(api, reference);
      await unwrap(api.DELETE('/api/dns/zones/{id}', { params: { path: { id } } }));
      printDone(`Zone ${reference} deleted`, { id, deleted: true }, out);
    });

  return zones;
}

function recordsCommand(): Command {
  const records = new Command('records').alias('record').description("A zone's records (a record is named by its id)");

  records
    .command('list')
    .description("List a zone's records")
    .argument('<zone>', zoneArgument)
    .addHelpText('after', examples('hostctl dns records list example.com', 'hostctl dns records list example.com -o json'))
    .action(async (reference: string, _options: unknown, command: Command) => {
      const { api, out } = session(command);
      const id = await resolveZoneId(api, reference);
      printList(await listAll(api, '/api/dns/zones/{id}/records', undefined, { id }), RECORD_COLUMNS, out);
    });

  recordOptions(records.command('add'), true)
    .description('Add a record to a zone')
    .argument('<zone>', zoneArgument)
    .addHelpText(
      'after',
      '\nNames are relative to the zone; targets are absolute (www.example.com, with or without the final dot).\n' +
        examples(
          'hostctl dns records add example.com --type A --value 203.0.113.10',
          'hostctl dns records add example.com --name www --type CNAME --value example.com.',
          'hostctl dns records add example.com --type MX --value mail.example.com. --priority 10',
          "hostctl dns records add example.com --type TXT --value 'v=spf1 mx -all'",
        ),
    )
    .action(async (reference: string, options: RecordOptions, command: Command) => {
      const { api, out } = session(command);
      const id = await resolveZoneId(api, reference);
      const body = { name: '@', ...recordBody(options) } as Schemas['CreateRecordRequest'];
      const record = await unwrap(api.POST('/api/dns/zones/{id}/records', { params: { path: { id } }, body }));
      printObject(record, asFields(RECORD_COLUMNS), out);
    });

  recordOptions(records.command('update'), false)
    .description('Change a record: the options given replace those fields, the others stay')
    .argument('<zone>', zoneArgument)
    .argument('<record-id>', 'the record\'s id ("hostctl dns records list" shows them)')
    .addHelpText(
      'after',
      '\nChanging the type clears priority, weight and port unless they are given too.\n' +
        examples('hostctl dns records update example.com 3f6c... --value 203.0.113.11 --ttl 300'),
    )
    .action(async (reference: string, recordId: string, options: RecordOptions, command: Command) => {
      const body = recordBody(options);
      if (!Object.keys(body).length)
        throw new UsageError('nothing to change: give --name, --type, --value, --ttl, --priority, --weight or --port');
      const { api, out } = session(command);
      const id = await resolveZoneId(api, reference);
      const record = await unwrap(api.PATCH('/api/dns/zones/{id}/records/{recordId}', { params: { path: { id, recordId } }, body }));
      printObject(record, asFields(RECORD_COLUMNS), out);
    });

  records
    .command('delete')
    .description('Delete a record')
    .argument('<zone>', zoneArgument)
    .argument('<record-id>', 'the record\'s id ("hostctl dns records list" shows them)')
    .addHelpText('after', examples('hostctl dns records delete example.com 3f6c...'))
    .action(async (reference: string, recordId: string, _options: unknown, command: Command) => {
      const { api, out } = session(command);
      const id = await resolveZoneId(api, reference);
      await unwrap(api.DELETE('/api/dns/zones/{id}/records/{recordId}', { params: { path: { id, recordId } } }));
      printDone(`Record ${recordId} deleted`, { id: recordId, deleted: true }, out);
    });

  return records;
}
