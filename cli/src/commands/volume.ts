import { Command, Option } from 'commander';
import { HostingClient, listAll, unwrap, VolumeAction } from '@hosting-account/sdk';
import { ActionFailedError, statusOf, waitForVolumeWithProgress } from '../action-wait';
import { examples, GlobalOptions, parsePositiveInt, session } from '../command-context';
import { format, printDone } from '../output';
import { resolveServiceId } from '../service-ref';
import { printVolumes, showVolume } from './volume-view';

interface WaitOptions {
  wait?: boolean;
  timeout: number;
}

const waitFlag = 'wait until the action has finished (exit code 1 if it failed)';
const timeoutOption = () => new Option('--timeout <seconds>', 'give up waiting after this long').default(300).argParser(parsePositiveInt);
const volumeArgument = 'service id of the volume, or its name';

export function volumeCommand(): Command {
  const volume = new Command('volume')
    .alias('volumes')
    .description('Volumes: block storage attached to one VPS at a time, grown while in use (your provider makes them)');

  volume
    .command('list')
    .description('List your volumes, newest first: size, region, state, the VPS each is attached to and its device there')
    .addHelpText('after', examples('hostctl volume list', 'hostctl volume list -o json'))
    .action(async (_options: unknown, command: Command) => {
      const { api, out } = session(command);
      await printVolumes(api, await listAll(api, '/api/services', { type: 'volume' }), out);
    });

  volume
    .command('get')
    .description('Show a volume: size, region, state, the VPS it is attached to and where that VPS finds it (Device)')
    .argument('<volume>', volumeArgument)
    .addHelpText('after', examples('hostctl volume get data', 'hostctl volume get data -o json | jq -r .volume.device'))
    .action(async (reference: string, _options: unknown, command: Command) => {
      const { api, out } = session(command);
      const id = await resolveServiceId(api, reference, 'volume');
      await showVolume(api, await unwrap(api.GET('/api/services/{id}', { params: { path: { id } } })), out);
    });

  volume
    .command('attach')
    .description("Attach a volume to a VPS of its region: live on a running VPS, at the stable path 'volume get' shows")
    .argument('<volume>', volumeArgument)
    .argument('<vps>', 'service id of the VPS, or its name')
    .option('--wait', waitFlag)
    .addOption(timeoutOption())
    .addHelpText(
      'after',
      "\nA volume is on one VPS at a time (409 volume_in_use: detach it first), and of the VPS's region (409 region_mismatch).\n" +
        examples('hostctl volume attach data web-01 --wait', 'hostctl volume attach data web-01 --wait -o json'),
    )
    .action(async (reference: string, vps: string, options: WaitOptions, command: Command) => {
      const { api, out } = session(command);
      const id = await resolveServiceId(api, reference, 'volume');
      const serviceId = await resolveServiceId(api, vps, 'vps');
      const started = await unwrap(api.POST('/api/services/{id}/volume/attach', { params: { path: { id } }, body: { serviceId } }));
      await finish(api, out, started, `attach ${reference} to ${vps}`, options);
    });

  volume
    .command('detach')
    .description('Detach a volume from its VPS (unmount it there first)')
    .argument('<volume>', volumeArgument)
    .option('--wait', waitFlag)
    .addOption(timeoutOption())
    .addHelpText(
      'after',
      '\nA VPS that still uses the disk refuses to let it go: the action fails with detach_refused and the volume stays attached.\n' +
        examples('hostctl volume detach data --wait'),
    )
    .action(async (reference: string, options: WaitOptions, command: Command) => {
      const { api, out } = session(command);
      const id = await resolveServiceId(api, reference, 'volume');
      const started = await unwrap(api.POST('/api/services/{id}/volume/detach', { params: { path: { id } } }));
      await finish(api, out, started, `detach ${reference}`, options);
    });

  volume
    .command('resize')
    .description('Grow a volume (never shrink it); an attached one grows under the running VPS')
    .argument('<volume>', volumeArgument)
    .requiredOption('--size <GiB>', 'the new size in GiB, larger than the current one', parsePositiveInt)
    .option('--wait', waitFlag)
    .addOption(timeoutOption())
    .addHelpText(
      'after',
      "\nThen grow the filesystem in the VPS: resize2fs (ext4) or xfs_growfs (XFS) on the volume's device.\n" +
        examples('hostctl volume resize data --size 200 --wait'),
    )
    .action(async (reference: string, options: WaitOptions & { size: number }, command: Command) => {
      const { api, out } = session(command);
      const id = await resolveServiceId(api, reference, 'volume');
      const body = { sizeGb: options.size };
      const started = await unwrap(api.POST('/api/services/{id}/volume/resize', { params: { path: { id } }, body }));
      await finish(api, out, started, `resize ${reference} to ${options.size} GiB`, options);
    });

  return volume;
}

/** Prints the action (as started, or as it ended with --wait); an attach that succeeded says where the VPS finds the volume. */
async function finish(api: HostingClient, out: GlobalOptions, started: VolumeAction, what: string, options: WaitOptions): Promise<void> {
  const action = options.wait ? await waitForVolumeWithProgress(api, started, options.timeout) : started;
  let message = `${what}: ${statusOf(action)} (action ${action.id})`;
  if (format(out) === 'table' && action.type === 'attach' && action.status === 'succeeded') {
    const { device } = await unwrap(api.GET('/api/services/{id}/volume', { params: { path: { id: action.serviceId } } }));
    message += `\nDevice: ${device ?? '-'}`;
  }
  printDone(message, action, out);
  if (action.status === 'failed') throw new ActionFailedError(action);
}
