import { Command } from 'commander';
import { HostingClient, Schemas, unwrap } from '@hosting-account/sdk';
import { examples, globals, session } from '../command-context';
import { updateConfig } from '../config';
import { printDone, printList } from '../output';
import { findRef } from '../ref';
import { ACCOUNT, LoginAccount } from '../refs';
import { savedSessionContext, sessionFields } from '../session';

type ListedAccount = LoginAccount & { current: boolean };

/** The account the credentials act on, as `Acme Ltd (6f1d...)`: its id alone once the login is no member there. */
export function currentAccountLabel(me: Schemas['MeResponse']): string {
  const current = me.accounts.find((a) => a.accountId === me.currentAccountId);
  return current ? `${current.name} (${current.accountId})` : me.currentAccountId;
}

/** The login's accounts (`GET /api/auth/me`), the one the credentials act on marked current. */
async function loginAccounts(api: HostingClient): Promise<ListedAccount[]> {
  const me = await unwrap(api.GET('/api/auth/me'));
  return me.accounts.map((a) => ({ ...a, id: a.accountId, current: a.accountId === me.currentAccountId }));
}

export function accountsCommand(): Command {
  const accounts = new Command('accounts').description('The accounts your login is a member of; commands act on the current one');

  accounts
    .command('list')
    .description('List your accounts with your role on each; the current one is marked with *')
    .addHelpText('after', examples('hostctl accounts list', 'hostctl accounts list -o json'))
    .action(async (_options: unknown, command: Command) => {
      const { api, out } = session(command);
      const rows = (await loginAccounts(api)).map(({ id: _id, ...account }) => account);
      printList(
        rows,
        [
          { header: 'CURRENT', value: (a) => (a.current ? '*' : '') },
          { header: 'ID', value: (a) => a.accountId },
          { header: 'NAME', value: (a) => a.name },
          { header: 'ROLE', value: (a) => a.role },
        ],
        out,
      );
    });

  accounts
    .command('switch')
    .description("Act on another of your accounts: the context's session gets new tokens for it")
    .argument('<account>', 'account id, or its name')
    .addHelpText(
      'after',
      '\nAn API key belongs to one account and cannot switch: log in with email and password for that.\n' +
        examples('hostctl accounts switch "Acme Ltd"', 'hostctl --context work accounts switch 6f1d...'),
    )
    .action(async (reference: string, _options: unknown, command: Command) => {
      const name = savedSessionContext(globals(command).context);
      const { api, out } = session(command);
      const account = findRef(await loginAccounts(api), reference, ACCOUNT);
      const tokens = await unwrap(api.POST('/api/auth/switch-account', { body: { accountId: account.accountId } }));
      updateConfig((config) => Object.assign(config.contexts[name], sessionFields(tokens)));
      const { accountId, role } = account;
      printDone(`Switched to account ${account.name} (${accountId}) as ${role}`, { accountId, name: account.name, role }, out);
    });

  return accounts;
}
