import { errorPage, markup, Page } from '@app/core';

export interface EmailLinkView {
  email: string;
  /** The link moves the account to this address (an email change), rather than confirming its own. */
  change: boolean;
}

/** Opening the link changes nothing (mail scanners open links): the button does, with a POST. */
export function confirmFormPage(token: string, link: EmailLinkView): Page {
  const what = link.change
    ? markup`<p>Confirm <strong>${link.email}</strong> as the new email address of your account. It replaces the old address, which you then no longer sign in with; links mailed before stop working.</p>`
    : markup`<p>Confirm that <strong>${link.email}</strong> is the address of your account.</p>`;
  return {
    status: 200,
    title: link.change ? 'Confirm your new email address' : 'Confirm your email address',
    body: markup`${what}
<form method="post" action="confirm-email">
<input type="hidden" name="token" value="${token}">
<button type="submit">Confirm email address</button>
</form>`,
  };
}

export function confirmDonePage(link: EmailLinkView, dashboardUrl: string | undefined): Page {
  const done = link.change
    ? markup`The account's email address is now <strong>${link.email}</strong>. Sign in with it from now on.`
    : markup`<strong>${link.email}</strong> is confirmed. The account can now create API keys and webhooks and turn on two-factor sign-in.`;
  return {
    status: 200,
    title: link.change ? 'Your email address was changed' : 'Your email address is confirmed',
    body: markup`<div class="done" role="status"><p>${done}</p></div>
${dashboardUrl ? markup`<p><a href="${dashboardUrl}">Go to the dashboard</a></p>` : null}`,
  };
}

export function confirmLinkFailedPage(): Page {
  return errorPage(
    400,
    'This confirmation link does not work',
    'The link is invalid, has expired or was already used. A confirmation link works once, for 24 hours, and a newer link replaces it.',
    markup`<p>If the address is already confirmed, there is nothing left to do. Otherwise ask for a new link (signed in, <code>POST /api/auth/email/resend</code>, or change the email again) and open the newest mail.</p>`,
  );
}
