import { Command, Option } from 'commander';
import { HostingClient, listAll, Schemas, unwrap } from '@hosting-account/sdk';
import { examples, session } from '../command-context';
import { asFields, Column, format, printData, printDone, printList, printObject } from '../output';
import { resolveInvitationId } from '../refs';
import { ROLES } from './members';

type Invitation = Schemas['InvitationResponse'];
type Role = Schemas['Role'];

/** The inviter shown by email; a member who has left shows `-`. */
const columns = (emails: Map<string, string>): Column<Invitation>[] => [
  { header: 'ID', value: (i) => i.id },
  { header: 'EMAIL', value: (i) => i.email },
  { header: 'ROLE', value: (i) => i.role },
  { header: 'INVITED BY', value: (i) => (i.invitedBy ? (emails.get(i.invitedBy) ?? i.invitedBy) : null) },
  { header: 'CREATED', value: (i) => i.createdAt },
  { header: 'EXPIRES', value: (i) => i.expiresAt },
];

async function memberEmails(api: HostingClient): Promise<Map<string, string>> {
  return new Map((await listAll(api, '/api/account/members')).map((m) => [m.id, m.email]));
}

export function invitationsCommand(): Command {
  const invitations = new Command('invitations').description(
    'Invitations to the current account: a single-use link mailed to an address, with the role it grants',
  );

  invitations
    .command('list')
    .description('List pending invitations, newest first')
    .addHelpText('after', examples('hostctl invitations list', 'hostctl invitations list -o json'))
    .action(async (_options: unknown, command: Command) => {
      const { api, out } = session(command);
      const pending = await listAll(api, '/api/account/invitations');
      printList(pending, columns(format(out) === 'table' ? await memberEmails(api) : new Map()), out);
    });

  invitations
    .command('create')
    .description('Invite an address to the account (admin needed); a link to accept is mailed to it')
    .argument('<email>', 'the address invited: only a login with it, confirmed, can accept')
    .addOption(new Option('--role <role>', 'the role it grants, no higher than yours').choices(ROLES).default('member'))
    .addHelpText(
      'after',
      examples('hostctl invitations create grace@example.com', 'hostctl invitations create ops@example.com --role read_only'),
    )
    .action(async (email: string, options: { role: Role }, command: Command) => {
      const { api, out } = session(command);
      const invitation = await unwrap(api.POST('/api/account/invitations', { body: { email, role: options.role } }));
      if (format(out) !== 'table') return printData(invitation, format(out));
      printObject(invitation, asFields(columns(await memberEmails(api))), out);
      process.stdout.write(`\nA link to accept it was mailed to ${invitation.email}; it works once, until ${invitation.expiresAt}.\n`);
    });

  invitations
    .command('delete')
    .description('Delete a pending invitation (admin needed): its link stops working')
    .argument('<invitation>', 'invitation id, or the address invited')
    .addHelpText('after', examples('hostctl invitations delete grace@example.com', 'hostctl invitations delete 0c7d...'))
    .action(async (reference: string, _options: unknown, command: Command) => {
      const { api, out } = session(command);
      const id = await resolveInvitationId(api, reference);
      await unwrap(api.DELETE('/api/account/invitations/{id}', { params: { path: { id } } }));
      printDone(`Invitation ${id} deleted`, { id, deleted: true }, out);
    });

  invitations
    .command('accept')
    .description("Join the account of an invitation mailed to your login's confirmed address")
    .argument('<token>', "the token of the mail's link (hinv_...)")
    .addHelpText(
      'after',
      '\nIt needs a session ("hostctl auth login"), not an API key. It does not switch to the account: "hostctl accounts switch" does.\n' +
        examples('hostctl invitations accept hinv_...'),
    )
    .action(async (token: string, _options: unknown, command: Command) => {
      const { api, out } = session(command);
      const joined = await unwrap(api.POST('/api/auth/invitations/accept', { body: { token } }));
      printObject(
        joined,
        [
          { header: 'Account', value: (j) => j.accountId },
          { header: 'Name', value: (j) => j.name },
          { header: 'Role', value: (j) => j.role },
          { header: 'Member ID', value: (j) => j.memberId },
        ],
        out,
      );
      if (format(out) === 'table') process.stdout.write(`\nAct on it with: hostctl accounts switch ${joined.accountId}\n`);
    });

  return invitations;
}
