import { Command, Option } from 'commander';
import { HostingClient, listAll, rescueInstance, unrescueInstance } from '@hosting-account/sdk';
import { UsageError } from '../errors';
import { ActionFailedError, statusOf, waitWithProgress } from '../action-wait';
import { examples, parsePositiveInt, session } from '../command-context';
import { format, printData, printDone, printObject } from '../output';
import { resolveServiceId } from '../service-ref';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** `hostctl vps rescue` and `vps unrescue`: the rescue's password is printed once, as reset-password's. */
export function rescueCommands(): Command[] {
  const rescue = new Command('rescue')
    .description("Boot a VPS into the rescue system, its own disk attached as /dev/vdb; prints root's password once")
    .argument('<id>', 'service id of the VPS, or its name')
    .option('--ssh-key <key...>', 'SSH key ids or names root logs in with (default: all of your keys)')
    .option('--wait', 'wait until the rescue system is booting (exit code 1 if it failed)')
    .addOption(new Option('--timeout <seconds>', 'give up waiting after this long').default(300).argParser(parsePositiveInt))
    .addHelpText(
      'after',
      '\nThen: ssh root@<the VPS address>, mount /dev/vdb1 /mnt, repair, and hostctl vps unrescue. The rescue ends by itself after a day.\n' +
        'The password (for the console) is not stored anywhere: it is printed on a terminal only, unless -o json (or yaml) asks for it on a pipe.\n' +
        examples('hostctl vps rescue web-01 --wait', 'hostctl vps rescue web-01 --ssh-key laptop -o json | jq -r .rootPassword'),
    )
    .action(async (reference: string, options: { sshKey?: string[]; wait?: boolean; timeout: number }, command: Command) => {
      const { api, out } = session(command);
      const kind = format(out);
      if (kind === 'table' && !process.stdout.isTTY)
        throw new UsageError(
          'standard output is not a terminal: the password would be written to a pipe or a file; add -o json to mean it',
        );
      const id = await resolveServiceId(api, reference, 'vps');
      const sshKeyIds = options.sshKey ? await keyIds(api, options.sshKey) : undefined;
      const { rootPassword, rescueEndsAt, ...begun } = await rescueInstance(api, id, { sshKeyIds });
      const action = options.wait ? await waitWithProgress(api, begun, options.timeout) : begun;
      const shown = { ...action, rootPassword, rescueEndsAt };
      if (kind !== 'table') printData(shown, kind);
      else
        printObject(
          shown,
          [
            { header: 'Action', value: (a) => `${a.id} (${a.status})` },
            { header: 'Root password', value: (a) => a.rootPassword },
            { header: 'Rescue ends', value: (a) => a.rescueEndsAt },
          ],
          out,
        );
      if (action.status === 'failed') throw new ActionFailedError(action);
    });

  const unrescue = new Command('unrescue')
    .description('End the rescue: boot the VPS from its own disk again')
    .argument('<id>', 'service id of the VPS, or its name')
    .option('--wait', 'wait until the action has finished (exit code 1 if it failed)')
    .addOption(new Option('--timeout <seconds>', 'give up waiting after this long').default(300).argParser(parsePositiveInt))
    .addHelpText('after', examples('hostctl vps unrescue web-01 --wait'))
    .action(async (reference: string, options: { wait?: boolean; timeout: number }, command: Command) => {
      const { api, out } = session(command);
      let action = await unrescueInstance(api, await resolveServiceId(api, reference, 'vps'));
      if (options.wait) action = await waitWithProgress(api, action, options.timeout);
      printDone(`unrescue: ${statusOf(action)} (action ${action.id})`, action, out);
      if (action.status === 'failed') throw new ActionFailedError(action);
    });
  return [rescue, unrescue];
}

/** Key ids as given, names looked up in the account's keys. */
async function keyIds(api: HostingClient, references: string[]): Promise<string[]> {
  if (references.every((r) => UUID.test(r))) return references;
  const keys = await listAll(api, '/api/ssh-keys');
  return references.map((reference) => {
    if (UUID.test(reference)) return reference;
    const key = keys.find((k) => k.name === reference || k.fingerprint === reference);
    if (!key) throw new UsageError(`no SSH key named "${reference}" in your account (hostctl ssh-key list shows them)`);
    return key.id;
  });
}
