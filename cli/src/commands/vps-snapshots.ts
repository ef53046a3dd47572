import { Command, Option } from 'commander';
import { listAll, Schemas, unwrap } from '@hosting-account/sdk';
import { ActionFailedError, statusOf, waitWithProgress } from '../action-wait';
import { examples, parsePositiveInt, session } from '../command-context';
import { Column, printDone, printList } from '../output';
import { resolveImageId } from '../refs';
import { resolveServiceId } from '../service-ref';

type Image = Schemas['ImageResponse'];

export const IMAGE_COLUMNS: Column<Image>[] = [
  { header: 'ID', value: (i) => i.id },
  { header: 'SLUG', value: (i) => i.slug },
  { header: 'NAME', value: (i) => i.name },
  { header: 'FROM', value: (i) => i.createdFrom?.serviceId ?? '' },
  { header: 'SIZE', value: (i) => i.sizeBytes },
  { header: 'STATUS', value: (i) => i.status },
  { header: 'CREATED', value: (i) => i.createdAt },
];

/** `hostctl vps snapshot create|list|delete`: images of the account made from its VPSes. */
export function snapshotCommand(): Command {
  const snapshot = new Command('snapshot').description('Snapshots of your VPSes: images you can rebuild or create a VPS from');

  snapshot
    .command('create')
    .description('Snapshot a VPS (live when it runs) into an image of your account')
    .argument('<id>', 'service id of the VPS, or its name')
    .requiredOption('--name <name>', 'what the snapshot is called')
    .option('--wait', 'wait until the snapshot is made (exit code 1 if it failed)')
    .addOption(new Option('--timeout <seconds>', 'give up waiting after this long').default(600).argParser(parsePositiveInt))
    .addHelpText(
      'after',
      '\nRebuild from it with the image id or slug it gets: hostctl vps snapshot list shows them.\n' +
        examples('hostctl vps snapshot create web-01 --name before-upgrade --wait'),
    )
    .action(async (reference: string, options: { name: string; wait?: boolean; timeout: number }, command: Command) => {
      const { api, out } = session(command);
      const id = await resolveServiceId(api, reference, 'vps');
      let action = await unwrap(
        api.POST('/api/services/{id}/instance/snapshots', { params: { path: { id } }, body: { name: options.name } }),
      );
      if (options.wait) action = await waitWithProgress(api, action, options.timeout);
      const made = action.snapshot ? ` image ${action.snapshot.imageId}` : '';
      const consistency = action.snapshot?.consistency ? `, ${action.snapshot.consistency}-consistent` : '';
      printDone(`snapshot: ${statusOf(action)} (action ${action.id},${made}${consistency})`, action, out);
      if (action.status === 'failed') throw new ActionFailedError(action);
    });

  snapshot
    .command('list')
    .description('List the snapshots of your account')
    .addHelpText('after', examples('hostctl vps snapshot list', 'hostctl vps snapshot list -o json'))
    .action(async (_options: unknown, command: Command) => {
      const { api, out } = session(command);
      const images = await listAll(api, '/api/images');
      printList(
        images.filter((image) => image.type === 'snapshot'),
        IMAGE_COLUMNS,
        out,
      );
    });

  snapshot
    .command('delete')
    .description('Delete a snapshot')
    .argument('<snapshot>', 'the snapshot’s image id, slug or name')
    .addHelpText('after', examples('hostctl vps snapshot delete before-upgrade', 'hostctl vps snapshot delete 7d1e...'))
    .action(async (reference: string, _options: unknown, command: Command) => {
      const { api, out } = session(command);
      const id = await resolveImageId(api, reference, 'snapshot');
      await unwrap(api.DELETE('/api/images/{id}', { params: { path: { id } } }));
      printDone(`Snapshot ${id} deleted`, { id, deleted: true }, out);
    });
  return snapshot;
}
