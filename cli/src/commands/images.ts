import { Command, Option } from 'commander';
import { listAll, Schemas, unwrap } from '@hosting-account/sdk';
import { examples, session } from '../command-context';
import { asFields, printDone, printList, printObject } from '../output';
import { resolveImageId } from '../refs';
import { IMAGE_COLUMNS } from './vps-snapshots';

type Image = Schemas['ImageResponse'];

/** `hostctl images list|get|delete`: the system images and the account's snapshots a VPS is built or rebuilt from. */
export function imagesCommand(): Command {
  const images = new Command('images').description('Images a VPS is built or rebuilt from: system images and your snapshots');

  images
    .command('list')
    .description('List the images you can build or rebuild a VPS from')
    .addOption(new Option('--type <type>', 'only images of this type').choices(['system', 'snapshot']))
    .addHelpText('after', examples('hostctl images list', 'hostctl images list --type snapshot -o json'))
    .action(async (options: { type?: Image['type'] }, command: Command) => {
      const { api, out } = session(command);
      const all = await listAll(api, '/api/images');
      printList(
        all.filter((image) => !options.type || image.type === options.type),
        IMAGE_COLUMNS,
        out,
      );
    });

  images
    .command('get')
    .alias('show')
    .description('Show one image')
    .argument('<image>', 'image id, slug or name')
    .addHelpText('after', examples('hostctl images get debian-12', 'hostctl images get before-upgrade -o json'))
    .action(async (reference: string, _options: unknown, command: Command) => {
      const { api, out } = session(command);
      const id = await resolveImageId(api, reference);
      printObject(await unwrap(api.GET('/api/images/{id}', { params: { path: { id } } })), asFields(IMAGE_COLUMNS), out);
    });

  images
    .command('delete')
    .description('Delete a snapshot (system images are the provider’s)')
    .argument('<image>', 'the snapshot’s image id, slug or name')
    .addHelpText('after', examples('hostctl images delete before-upgrade'))
    .action(async (reference: string, _options: unknown, command: Command) => {
      const { api, out } = session(command);
      const id = await resolveImageId(api, reference, 'snapshot');
      await unwrap(api.DELETE('/api/images/{id}', { params: { path: { id } } }));
      printDone(`Image ${id} deleted`, { id, deleted: true }, out);
    });
  return images;
}
