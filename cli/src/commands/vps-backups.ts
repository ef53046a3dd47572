import { Command, Option } from 'commander';
import { listAll, Schemas, unwrap } from '@hosting-account/sdk';
import { ActionFailedError, statusOf, waitWithProgress } from '../action-wait';
import { examples, parsePositiveInt, session } from '../command-context';
import { Column, printDone, printList } from '../output';
import { resolveServiceId } from '../service-ref';

type Backup = Schemas['BackupResponse'];

const COLUMNS: Column<Backup>[] = [
  { header: 'ID', value: (b) => b.id },
  { header: 'CREATED', value: (b) => b.createdAt },
  { header: 'STATUS', value: (b) => b.status },
  { header: 'SIZE', value: (b) => b.sizeBytes ?? '' },
  { header: 'CONSISTENCY', value: (b) => b.consistency ?? '' },
  { header: 'ERROR', value: (b) => b.error?.code ?? '' },
];

/** `hostctl vps backups enable|disable|list|restore`: daily backups of a VPS, kept off the hypervisor. */
export function backupsCommand(): Command {
  const backups = new Command('backups').description('Daily backups of your VPSes, kept off the hypervisor');

  for (const [verb, description] of [
    ['enable', 'Back the VPS up every day (the newest backups are kept)'],
    ['disable', 'Stop the daily backups (those made are kept until the VPS is terminated)'],
  ] as const) {
    backups
      .command(verb)
      .description(description)
      .argument('<id>', 'service id of the VPS, or its name')
      .addHelpText('after', examples(`hostctl vps backups ${verb} web-01`))
      .action(async (reference: string, _options: unknown, command: Command) => {
        const { api, out } = session(command);
        const id = await resolveServiceId(api, reference, 'vps');
        const path = verb === 'enable' ? '/api/services/{id}/instance/backups/enable' : '/api/services/{id}/instance/backups/disable';
        const settings = await unwrap(api.POST(path, { params: { path: { id } } }));
        const next = settings.nextRunAt ? `, next at ${settings.nextRunAt}` : '';
        printDone(`backups ${settings.enabled ? 'enabled' : 'disabled'} (${settings.retention} kept${next})`, settings, out);
      });
  }

  backups
    .command('list')
    .description("List a VPS's backups, newest first")
    .argument('<id>', 'service id of the VPS, or its name')
    .addHelpText('after', examples('hostctl vps backups list web-01', 'hostctl vps backups list web-01 -o json'))
    .action(async (reference: string, _options: unknown, command: Command) => {
      const { api, out } = session(command);
      const id = await resolveServiceId(api, reference, 'vps');
      printList(await listAll(api, '/api/services/{id}/instance/backups', undefined, { id }), COLUMNS, out);
    });

  backups
    .command('restore')
    .description("Replace the VPS's disk with a backup and boot it (everything written since is lost)")
    .argument('<id>', 'service id of the VPS, or its name')
    .argument('<backup-id>', 'the backup, from hostctl vps backups list')
    .option('--wait', 'wait until the VPS runs from the backup (exit code 1 if it failed)')
    .addOption(new Option('--timeout <seconds>', 'give up waiting after this long').default(600).argParser(parsePositiveInt))
    .addHelpText('after', examples('hostctl vps backups restore web-01 3f2c... --wait'))
    .action(async (reference: string, backupId: string, options: { wait?: boolean; timeout: number }, command: Command) => {
      const { api, out } = session(command);
      const id = await resolveServiceId(api, reference, 'vps');
      let action = await unwrap(api.POST('/api/services/{id}/instance/backups/{backupId}/restore', { params: { path: { id, backupId } } }));
      if (options.wait) action = await waitWithProgress(api, action, options.timeout);
      printDone(`restore: ${statusOf(action)} (action ${action.id})`, action, out);
      if (action.status === 'failed') throw new ActionFailedError(action);
    });
  return backups;
}
