import { Command, InvalidArgumentError, Option } from 'commander';
import { createInstanceAlert, deleteInstanceAlert, InstanceAlert, listAll } from '@hosting-account/sdk';
import { examples, session } from '../command-context';
import { asFields, Column, printDone, printList, printObject } from '../output';
import { resolveServiceId } from '../service-ref';

const TYPES = ['cpu', 'network.in', 'network.out', 'disk.write'] as const;

const COLUMNS: Column<InstanceAlert>[] = [
  { header: 'ID', value: (a) => a.id },
  { header: 'TYPE', value: (a) => a.type },
  { header: 'ABOVE', value: (a) => `${a.above}${a.type === 'cpu' ? ' %' : ' B/s'}` },
  { header: 'FOR', value: (a) => `${a.forMinutes}m` },
  { header: 'STATE', value: (a) => a.state },
  { header: 'SINCE', value: (a) => a.stateChangedAt },
];

function parseThreshold(value: string): number {
  if (!/^\d+(\.\d+)?$/.test(value)) throw new InvalidArgumentError('must be a number of at least 0');
  return Number(value);
}

function parseMinutes(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > 60)
    throw new InvalidArgumentError('must be a whole number of minutes, 1..60');
  return Number(value);
}

/** `hostctl vps alerts list|create|delete`: metric alerts on a VPS. */
export function alertsCommand(): Command {
  const alerts = new Command('alerts').description(
    'Alerts on the graphs of a VPS: a notification and a webhook event when a series stays high',
  );

  alerts
    .command('list')
    .description('List the alerts of a VPS and whether they fire')
    .argument('<id>', 'service id of the VPS, or its name')
    .addHelpText('after', examples('hostctl vps alerts list web-01', 'hostctl vps alerts list web-01 -o json'))
    .action(async (reference: string, _options: unknown, command: Command) => {
      const { api, out } = session(command);
      const id = await resolveServiceId(api, reference, 'vps');
      printList(await listAll(api, '/api/services/{id}/instance/alerts', undefined, { id }), COLUMNS, out);
    });

  alerts
    .command('create')
    .description('Alert when a series stays above a threshold')
    .argument('<id>', 'service id of the VPS, or its name')
    .addOption(new Option('--type <type>', 'the series watched').choices(TYPES).makeOptionMandatory())
    .addOption(
      new Option('--above <value>', 'the threshold: percent for cpu, bytes/s for the others')
        .argParser(parseThreshold)
        .makeOptionMandatory(),
    )
    .addOption(new Option('--for <minutes>', 'minutes the series must stay above it (1..60)').default(5).argParser(parseMinutes))
    .addHelpText(
      'after',
      examples(
        'hostctl vps alerts create web-01 --type cpu --above 90 --for 10',
        'hostctl vps alerts create web-01 --type network.out --above 50000000',
      ),
    )
    .action(async (reference: string, options: { type: InstanceAlert['type']; above: number; for: number }, command: Command) => {
      const { api, out } = session(command);
      const id = await resolveServiceId(api, reference, 'vps');
      const alert = await createInstanceAlert(api, id, { type: options.type, above: options.above, forMinutes: options.for });
      printObject(alert, asFields(COLUMNS), out);
    });

  alerts
    .command('delete')
    .description('Delete an alert')
    .argument('<id>', 'service id of the VPS, or its name')
    .argument('<alert-id>', 'the alert id (hostctl vps alerts list shows them)')
    .addHelpText('after', examples('hostctl vps alerts delete web-01 9b2f...'))
    .action(async (reference: string, alertId: string, _options: unknown, command: Command) => {
      const { api, out } = session(command);
      const id = await resolveServiceId(api, reference, 'vps');
      await deleteInstanceAlert(api, id, alertId);
      printDone(`Alert ${alertId} deleted`, { id: alertId, deleted: true }, out);
    });
  return alerts;
}
