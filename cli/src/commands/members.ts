import { Argument, Command } from 'commander';
import { listAll, Schemas, unwrap } from '@hosting-account/sdk';
import { examples, session } from '../command-context';
import { UsageError } from '../errors';
import { asFields, Column, printDone, printList, printObject } from '../output';
import { findMember, resolveMemberId } from '../refs';
import { dropAccessToken } from '../session';
import { currentAccountLabel } from './accounts';

type Member = Schemas['MemberResponse'];
type Role = Schemas['Role'];

export const ROLES: Role[] = ['owner', 'admin', 'member', 'read_only'];
const memberArgument = 'member id, or their email';

const COLUMNS: Column<Member>[] = [
  { header: 'ID', value: (m) => m.id },
  { header: 'EMAIL', value: (m) => m.email },
  { header: 'NAME', value: (m) => m.name },
  { header: 'ROLE', value: (m) => m.role },
  { header: 'JOINED', value: (m) => m.joinedAt },
];

export function membersCommand(): Command {
  const members = new Command('members').description(
    'The people of the current account and their roles: owner, admin, member, read_only (see also "hostctl invitations")',
  );

  members
    .command('list')
    .description('List the members, first to join first')
    .addHelpText('after', examples('hostctl members list', 'hostctl members list -o json'))
    .action(async (_options: unknown, command: Command) => {
      const { api, out } = session(command);
      printList(await listAll(api, '/api/account/members'), COLUMNS, out);
    });

  members
    .command('get')
    .description('Show one member')
    .argument('<member>', memberArgument)
    .addHelpText('after', examples('hostctl members get grace@example.com', 'hostctl members get 5b1e... -o json'))
    .action(async (reference: string, _options: unknown, command: Command) => {
      const { api, out } = session(command);
      printObject(await findMember(api, reference), asFields(COLUMNS), out);
    });

  members
    .command('set-role')
    .description("Change a member's role (admin or owner needed); a lower role revokes the member's API keys at once")
    .argument('<member>', memberArgument)
    .addArgument(new Argument('<role>', 'the new role').choices(ROLES))
    .addHelpText(
      'after',
      '\nOnly an owner makes or unmakes an owner; the last owner keeps the role (409 last_owner).\n' +
        examples('hostctl members set-role grace@example.com admin', 'hostctl members set-role 5b1e... read_only'),
    )
    .action(async (reference: string, role: Role, _options: unknown, command: Command) => {
      const { api, out } = session(command);
      const memberId = await resolveMemberId(api, reference);
      const member = await unwrap(api.PATCH('/api/account/members/{memberId}', { params: { path: { memberId } }, body: { role } }));
      printObject(member, asFields(COLUMNS), out);
    });

  members
    .command('remove')
    .description('Remove a member from the account (admin needed): their API keys and sessions on it end at once')
    .argument('<member>', memberArgument)
    .addHelpText('after', examples('hostctl members remove grace@example.com', 'hostctl members remove 5b1e...'))
    .action(async (reference: string, _options: unknown, command: Command) => {
      const { api, out } = session(command);
      const { id, email } = await findMember(api, reference);
      await unwrap(api.DELETE('/api/account/members/{memberId}', { params: { path: { memberId: id } } }));
      printDone(`Member ${email} removed`, { id, email, removed: true }, out);
    });

  members
    .command('leave')
    .description('Leave the current account: your API keys on it stop working at once')
    .addHelpText(
      'after',
      '\nA session then acts on another of your accounts ("hostctl accounts list"). The last owner cannot leave (409 last_owner).\n' +
        examples('hostctl members leave', 'hostctl --context work members leave'),
    )
    .action(async (_options: unknown, command: Command) => {
      const { api, out } = session(command);
      const me = await unwrap(api.GET('/api/auth/me'));
      const { currentAccountId: accountId, memberId } = me;
      if (!memberId) throw new UsageError(`you are no longer a member of account ${accountId} ("hostctl accounts list" shows yours)`);
      await unwrap(api.DELETE('/api/account/members/{memberId}', { params: { path: { memberId } } }));
      dropAccessToken(out.context);
      printDone(`Left account ${currentAccountLabel(me)}`, { accountId, memberId, left: true }, out);
    });

  return members;
}
