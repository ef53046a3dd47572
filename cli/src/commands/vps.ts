import { Command, Option } from 'commander';
import { HostingClient, resetRootPassword, unwrap } from '@hosting-account/sdk';
import { UsageError } from '../errors';
import { ActionFailedError, statusOf, waitWithProgress } from '../action-wait';
import { examples, parsePositiveInt, session } from '../command-context';
import { format, printData, printDone, printObject } from '../output';
import { openConsolePage } from '../console-page';
import { resolveImageId, resolveSshKeyId } from '../refs';
import { resolveServiceId } from '../service-ref';
import { snapshotCommand } from './vps-snapshots';
import { backupsCommand } from './vps-backups';
import { metricsCommand } from './vps-metrics';
import { alertsCommand } from './vps-alerts';
import { rescueCommands } from './vps-rescue';
import { rdnsCommand } from './vps-rdns';

export { ActionFailedError } from '../action-wait';

type PowerAction = 'start' | 'stop' | 'reboot';

const DESCRIPTIONS: Record<PowerAction, string> = {
  start: 'Power on a VPS',
  stop: 'Shut a VPS down gracefully (ACPI), powering it off if it does not stop in time',
  reboot: 'Reboot a VPS',
};

export function vpsCommand(): Command {
  const vps = new Command('vps').description('Power actions, snapshots, graphs, reverse DNS and the console of your virtual servers');
  for (const type of ['start', 'stop', 'reboot'] as const) vps.addCommand(powerCommand(type));
  vps.addCommand(snapshotCommand());
  vps.addCommand(backupsCommand());
  vps.addCommand(metricsCommand());
  vps.addCommand(alertsCommand());
  vps.addCommand(rdnsCommand());

  vps
    .command('console')
    .description('Open a console session: prints the VNC WebSocket URL and its one-time password')
    .argument('<id>', 'service id of the VPS, or its name')
    .option('--open', 'open the console in your browser (noVNC, served on 127.0.0.1 until you press Ctrl-C)')
    .addHelpText(
      'after',
      '\nThe URL is valid for 60 seconds and for one connection: run the command again for a new one.\n' +
        examples('hostctl vps console web-01', 'hostctl vps console 4f0c2a8e-... --open'),
    )
    .action(async (reference: string, options: { open?: boolean }, command: Command) => {
      const { api, out } = session(command);
      const id = await resolveServiceId(api, reference, 'vps');
      const consoleSession = await unwrap(api.GET('/api/services/{id}/instance/console', { params: { path: { id } } }));
      if (format(out) !== 'table') printData(consoleSession, format(out));
      else
        printObject(
          consoleSession,
          [
            { header: 'URL', value: (c) => c.url },
            { header: 'Password', value: (c) => c.password },
            { header: 'Expires', value: (c) => c.expiresAt },
          ],
          out,
        );
      if (options.open) {
        const service = await unwrap(api.GET('/api/services/{id}', { params: { path: { id } } })).catch(() => undefined);
        const again = `hostctl${out.context ? ` --context ${out.context}` : ''} vps console ${id} --open`;
        await openConsolePage(consoleSession, { id, name: service?.name, again });
      }
    });
  vps.addCommand(rebuildCommand());
  vps.addCommand(resetPasswordCommand());
  for (const command of rescueCommands()) vps.addCommand(command);
  return vps;
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

/** `hostctl vps rebuild <vps> --image <slug>`: the disk written anew from an image, as the API's rebuild does. */
function rebuildCommand(): Command {
  return new Command('rebuild')
    .description('Rebuild a VPS from an image: its disk is written anew (everything on it is lost); volumes stay attached')
    .argument('<id>', 'service id of the VPS, or its name')
    .requiredOption('--image <image>', 'image slug, name or id (hostctl images list shows them)')
    .option('--ssh-key <key>', "an SSH key for root, by name, fingerprint or id (repeat; default: all of the account's)", collect)
    .option('--wait', 'wait until the rebuild has finished (exit code 1 if it failed)')
    .addOption(new Option('--timeout <seconds>', 'give up waiting after this long').default(600).argParser(parsePositiveInt))
    .addHelpText(
      'after',
      examples('hostctl vps rebuild web-01 --image debian-12 --wait', 'hostctl vps rebuild web-01 --image before-upgrade --ssh-key laptop'),
    )
    .action(async (reference: string, options: { image: string; sshKey?: string[]; wait?: boolean; timeout: number }, command: Command) => {
      const { api, out } = session(command);
      const id = await resolveServiceId(api, reference, 'vps');
      const image = await resolveImageId(api, options.image);
      const sshKeyIds = options.sshKey
        ? [...new Set(await Promise.all(options.sshKey.map((key) => resolveSshKeyId(api, key))))]
        : undefined;
      let action = await unwrap(api.POST('/api/services/{id}/instance/rebuild', { params: { path: { id } }, body: { image, sshKeyIds } }));
      if (options.wait) action = await waitWithProgress(api, action, options.timeout);
      printDone(`rebuild: ${statusOf(action)} (action ${action.id})`, action, out);
      if (action.status === 'failed') throw new ActionFailedError(action);
    });
}

/** The password is shown once; on a pipe or in a file only when asked for with -o json|yaml. */
function resetPasswordCommand(): Command {
  return new Command('reset-password')
    .description('Set a new root password in a running VPS (through its QEMU guest agent) and print it, once')
    .argument('<id>', 'service id of the VPS, or its name')
    .addHelpText(
      'after',
      '\nThe password is not stored anywhere: note it now. It is printed on a terminal only, unless -o json (or yaml) asks for it on a pipe.\n' +
        examples('hostctl vps reset-password web-01', 'hostctl vps reset-password web-01 -o json | jq -r .rootPassword'),
    )
    .action(async (reference: string, _options: unknown, command: Command) => {
      const { api, out } = session(command);
      const kind = format(out);
      if (kind === 'table' && !process.stdout.isTTY)
        throw new UsageError(
          'standard output is not a terminal: the new password would be written to a pipe or a file; add -o json to mean it',
        );
      const id = await resolveServiceId(api, reference, 'vps');
      const rootPassword = await resetRootPassword(api, id);
      if (kind !== 'table') printData({ rootPassword }, kind);
      else printObject({ rootPassword }, [{ header: 'Root password', value: (r) => r.rootPassword }], out);
    });
}

function powerCommand(type: PowerAction): Command {
  return new Command(type)
    .description(DESCRIPTIONS[type])
    .argument('<id>', 'service id of the VPS, or its name')
    .option('--wait', 'wait until the action has finished (exit code 1 if it failed)')
    .addOption(new Option('--timeout <seconds>', 'give up waiting after this long').default(300).argParser(parsePositiveInt))
    .addHelpText(
      'after',
      examples(`hostctl vps ${type} web-01`, `hostctl vps ${type} 4f0c2a8e-... --wait`, `hostctl vps ${type} 4f0c2a8e-... --wait -o json`),
    )
    .action(async (reference: string, options: { wait?: boolean; timeout: number }, command: Command) => {
      const { api, out } = session(command);
      let action = await unwrap(post(api, type, await resolveServiceId(api, reference, 'vps')));
      if (options.wait) action = await waitWithProgress(api, action, options.timeout);
      printDone(`${type}: ${statusOf(action)} (action ${action.id})`, action, out);
      if (action.status === 'failed') throw new ActionFailedError(action);
    });
}

function post(api: HostingClient, type: PowerAction, id: string) {
  const params = { params: { path: { id } } };
  if (type === 'start') return api.POST('/api/services/{id}/instance/start', params);
  if (type === 'stop') return api.POST('/api/services/{id}/instance/stop', params);
  return api.POST('/api/services/{id}/instance/reboot', params);
}
