import { Command } from 'commander';
import { listAll, Schemas, unwrap } from '@hosting-account/sdk';
import { examples, session } from '../command-context';
import { Column, printList, printObject } from '../output';
import { resolveServiceId } from '../service-ref';

type Credentials = Schemas['ObjectStorageCredentialsResponse'];

const CREDENTIAL_FIELDS: Column<Credentials>[] = [
  { header: 'Endpoint', value: (c) => c.endpoint },
  { header: 'Region', value: (c) => c.region },
  { header: 'Bucket', value: (c) => c.bucket },
  { header: 'Access key ID', value: (c) => c.accessKeyId },
  { header: 'Secret access key', value: (c) => c.secretAccessKey },
  { header: 'Created', value: (c) => c.createdAt },
];

const BUCKET_COLUMNS: Column<Schemas['BucketResponse']>[] = [
  { header: 'NAME', value: (b) => b.name },
  { header: 'BYTES', value: (b) => b.sizeBytes },
  { header: 'OBJECTS', value: (b) => b.objects },
  { header: 'CREATED', value: (b) => b.createdAt ?? '' },
];

export function storageCommand(): Command {
  const storage = new Command('storage').description('Object storage services');
  storage
    .command('credentials')
    .description('Show the S3 endpoint, bucket and access keys of an object storage service')
    .argument('<id>', 'service id of the object storage service, or its name')
    .addHelpText(
      'after',
      examples('hostctl storage credentials backups', 'hostctl storage credentials 9b1d... -o json | jq -r .secretAccessKey'),
    )
    .action(async (reference: string, _options: unknown, command: Command) => {
      const { api, out } = session(command);
      const id = await resolveServiceId(api, reference, 'object_storage');
      const credentials = await unwrap(api.GET('/api/services/{id}/object-storage/credentials', { params: { path: { id } } }));
      printObject(credentials, CREDENTIAL_FIELDS, out);
    });
  storage
    .command('rotate')
    .description('Replace the S3 key of an object storage service (the old key stops working) and show the new one')
    .argument('<id>', 'service id of the object storage service, or its name')
    .addHelpText('after', examples('hostctl storage rotate 9b1d...'))
    .action(async (reference: string, _options: unknown, command: Command) => {
      const { api, out } = session(command);
      const id = await resolveServiceId(api, reference, 'object_storage');
      const credentials = await unwrap(api.POST('/api/services/{id}/object-storage/credentials/rotate', { params: { path: { id } } }));
      printObject(credentials, CREDENTIAL_FIELDS, out);
    });
  storage
    .command('buckets')
    .description('List the buckets of an object storage service with their sizes')
    .argument('<id>', 'service id of the object storage service, or its name')
    .addHelpText('after', examples('hostctl storage buckets 9b1d...', 'hostctl storage buckets 9b1d... -o json'))
    .action(async (reference: string, _options: unknown, command: Command) => {
      const { api, out } = session(command);
      const id = await resolveServiceId(api, reference, 'object_storage');
      printList(await listAll(api, '/api/services/{id}/object-storage/buckets', undefined, { id }), BUCKET_COLUMNS, out);
    });
  return storage;
}
