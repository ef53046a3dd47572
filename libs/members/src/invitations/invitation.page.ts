import { errorPage, markup, Page } from '@app/core';
import type { Role } from '@app/core';
import { ROLE_NAMES } from '../role-names';

export interface InvitationView {
  email: string;
  account: string;
  role: Role;
  expiresAt: Date;
}

/** Opening the link accepts nothing (mail scanners open links): it says who may accept, and how. */
export function invitationPage(token: string, invitation: InvitationView, publicUrl: string): Page {
  return {
    status: 200,
    title: `Join ${invitation.account}`,
    body: markup`<p>You are invited to the hosting account <strong>${invitation.account}</strong> as ${ROLE_NAMES[invitation.role]}.</p>
<p>Only the login with the address <strong>${invitation.email}</strong> can accept, once it is confirmed. If you have no login with it yet, register one (<code>POST ${publicUrl}/api/auth/register</code>) and open the confirmation mail first.</p>
<p>Then accept, signed in as ${invitation.email}, before ${invitation.expiresAt.toUTCString()}:</p>
<pre>hostctl invitations accept ${token}</pre>
<p>or</p>
<pre>curl -X POST ${publicUrl}/api/auth/invitations/accept -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' -d '{"token": "${token}"}'</pre>`,
  };
}

export function invitationFailedPage(): Page {
  return errorPage(
    400,
    'This invitation does not work',
    'The invitation is invalid, has expired, was deleted or was already accepted.',
    markup`<p>Ask the person who invited you to send a new one.</p>`,
  );
}
