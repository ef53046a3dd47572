import { homedir } from 'node:os';
import { basename, join } from 'node:path';
import { Command } from 'commander';
import { listAll, Schemas, unwrap } from '@hosting-account/sdk';
import { examples, session } from '../command-context';
import { asFields, Column, printDone, printList, printObject } from '../output';
import { readPublicKeyFile } from '../public-key-file';
import { resolveSshKeyId } from '../refs';

type SshKey = Schemas['SshKeyResponse'];

const COLUMNS: Column<SshKey>[] = [
  { header: 'ID', value: (k) => k.id },
  { header: 'NAME', value: (k) => k.name },
  { header: 'TYPE', value: (k) => k.type },
  { header: 'BITS', value: (k) => k.bits },
  { header: 'FINGERPRINT', value: (k) => k.fingerprint },
  { header: 'CREATED', value: (k) => k.createdAt },
];

export function sshKeysCommand(): Command {
  const keys = new Command('ssh-keys').description('SSH public keys of your account');

  keys
    .command('add')
    .description('Add an SSH public key')
    .option('--name <name>', 'a name for the key (default: the comment of the key, or the file name)')
    .option(
      '--public-key-file <path>',
      'the OpenSSH public key file (given a private key, its .pub beside it; a private key is never sent)',
      join(homedir(), '.ssh', 'id_ed25519.pub'),
    )
    .addHelpText('after', examples('hostctl ssh-keys add', 'hostctl ssh-keys add --name laptop --public-key-file ~/.ssh/id_rsa.pub'))
    .action(async (options: { name?: string; publicKeyFile: string }, command: Command) => {
      const { path, publicKey, note } = readPublicKeyFile(options.publicKeyFile);
      if (note) process.stderr.write(`${note}\n`);
      const name = options.name ?? (publicKey.split(/\s+/)[2] || basename(path)).slice(0, 64);
      const { api, out } = session(command);
      const key = await unwrap(api.POST('/api/ssh-keys', { body: { name, publicKey } }));
      printObject(key, asFields(COLUMNS), out);
    });

  keys
    .command('list')
    .description('List SSH keys')
    .addHelpText('after', examples('hostctl ssh-keys list', 'hostctl ssh-keys list -o json'))
    .action(async (_options: unknown, command: Command) => {
      const { api, out } = session(command);
      printList(await listAll(api, '/api/ssh-keys'), COLUMNS, out);
    });

  keys
    .command('get')
    .description('Show one SSH key')
    .argument('<key>', 'SSH key id, or its name or fingerprint')
    .addHelpText('after', examples('hostctl ssh-keys get laptop', 'hostctl ssh-keys get SHA256:... -o json'))
    .action(async (reference: string, _options: unknown, command: Command) => {
      const { api, out } = session(command);
      const id = await resolveSshKeyId(api, reference);
      printObject(await unwrap(api.GET('/api/ssh-keys/{id}', { params: { path: { id } } })), asFields(COLUMNS), out);
    });

  keys
    .command('delete')
    .description('Delete an SSH key')
    .argument('<key>', 'SSH key id, or its name or fingerprint')
    .addHelpText('after', examples('hostctl ssh-keys delete "ci runner"', 'hostctl ssh-keys delete 3c9e...'))
    .action(async (reference: string, _options: unknown, command: Command) => {
      const { api, out } = session(command);
      const id = await resolveSshKeyId(api, reference);
      await unwrap(api.DELETE('/api/ssh-keys/{id}', { params: { path: { id } } }));
      printDone(`SSH key ${id} deleted`, { id, deleted: true }, out);
    });
  return keys;
}
