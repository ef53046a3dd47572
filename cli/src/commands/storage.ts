import { Command } from 'commander';
import { unwrap } from '@hosting-account/sdk';
import { examples, session } from '../command-context';
import { printObject } from '../output';

export function storageCommand(): Command {
  const storage = new Command('storage').description('Object storage services');
  storage
    .command('credentials')
    .description('Show the S3 endpoint, bucket and access keys of an object storage service')
    .argument('<id>', 'service id of the object storage service')
    .addHelpText(
      'after',
      examples('hostctl storage credentials 9b1d...', 'hostctl storage credentials 9b1d... -o json | jq -r .secretAccessKey'),
    )
    .action(async (id: string, _options: unknown, command: Command) => {
      const { api, out } = session(command);
      const credentials = await unwrap(api.GET('/api/services/{id}/object-storage/credentials', { params: { path: { id } } }));
      printObject(
        credentials,
        [
          { header: 'Endpoint', value: (c) => c.endpoint },
          { header: 'Region', value: (c) => c.region },
          { header: 'Bucket', value: (c) => c.bucket },
          { header: 'Access key ID', value: (c) => c.accessKeyId },
          { header: 'Secret access key', value: (c) => c.secretAccessKey },
          { header: 'Created', value: (c) => c.createdAt },
        ],
        out,
      );
    });
  return storage;
}
