import { unwrap } from '@hosting-account/sdk';
import { invitation, member, pageOf, paging } from '../schemas';
import { defineTool, READS } from '../tool';

// Read only: who may act on the account is changed by people (hostctl, the dashboard), never by an agent.
export const MEMBER_TOOLS = [
  defineTool({
    name: 'members_list',
    title: 'List members',
    description:
      "The people of the account, first to join first: each member's email, name and role (owner, admin, member or read_only: what they may do) and when they joined. activity_list's actor.memberId is a member's id.",
    scope: 'read',
    annotations: READS,
    input: { ...paging },
    output: pageOf(member),
    run: (query, { api }) => unwrap(api.GET('/api/account/members', { params: { query } })),
  }),
  defineTool({
    name: 'invitations_list',
    title: 'List pending invitations',
    description:
      'Invitations to the account not yet accepted, newest first: the address invited, the role it grants, the member who sent it (invitedBy, a member id) and when its link expires.',
    scope: 'read',
    annotations: READS,
    input: { ...paging },
    output: pageOf(invitation),
    run: (query, { api }) => unwrap(api.GET('/api/account/invitations', { params: { query } })),
  }),
];
