import { errorPage, markup, Page, SafeHtml } from '@app/core';

export type ResetField = 'password' | 'confirmPassword';
export type ResetErrors = Partial<Record<ResetField, string>>;

const FIELDS: Record<ResetField, { id: string; label: string; hint?: string }> = {
  password: {
    id: 'new-password',
    label: 'New password',
    hint: 'At least 10 characters. A few unrelated words make a password that is long, easy to remember and hard to guess.',
  },
  confirmPassword: { id: 'confirm-password', label: 'Confirm new password' },
};

function field(name: ResetField, errors: ResetErrors, focus: boolean): SafeHtml {
  const { id, label, hint } = FIELDS[name];
  const error = errors[name];
  const describedBy = [hint && `${id}-hint`, error && `${id}-error`].filter(Boolean).join(' ');
  const aria = markup`${describedBy ? markup` aria-describedby="${describedBy}"` : null}${error ? markup` aria-invalid="true"` : null}`;
  return markup`<label for="${id}">${label}</label>
${hint ? markup`<p class="hint" id="${id}-hint">${hint}</p>` : null}
${error ? markup`<p class="error" id="${id}-error">Error: ${error}</p>` : null}
<input type="password" id="${id}" name="${name}" autocomplete="new-password" required${aria}${focus ? markup` autofocus` : null}>`;
}

/** The form; after a bad submission (400), the errors in a summary announced on load and beside each field. */
export function resetFormPage(token: string, email: string, errors: ResetErrors = {}): Page {
  const invalid = (Object.keys(FIELDS) as ResetField[]).filter((name) => errors[name]);
  const summary = invalid.length
    ? markup`<div class="alert" role="alert">
<h2>The password was not changed</h2>
<ul>${invalid.map((name) => markup`<li><a href="#${FIELDS[name].id}">${errors[name]}</a></li>`)}</ul>
</div>`
    : null;
  return {
    status: invalid.length ? 400 : 200,
    title: 'Choose a new password',
    failed: invalid.length > 0,
    body: markup`${summary}
<p>For the account <strong>${email}</strong>. Every session of the account is signed out once the new password is set.</p>
<form method="post" action="reset-password" novalidate>
<input type="email" autocomplete="username" value="${email}" readonly hidden>
<input type="hidden" name="token" value="${token}">
${field('password', errors, invalid[0] === 'password')}
${field('confirmPassword', errors, invalid[0] === 'confirmPassword')}
<button type="submit">Set new password</button>
</form>`,
  };
}

export function resetDonePage(email: string, revokedKeys: number, dashboardUrl: string | undefined): Page {
  const keys =
    revokedKeys === 0
      ? 'The account had no API keys.'
      : `${revokedKeys} API key${revokedKeys === 1 ? ' was' : 's were'} revoked: programs that used ${revokedKeys === 1 ? 'it' : 'them'} need a new key.`;
  const next = dashboardUrl
    ? markup`<p><a href="${dashboardUrl}">Sign in to the dashboard</a> with the new password.</p>`
    : markup`<p>Sign in with the new password (<code>hostctl auth login</code>, or <code>POST /api/auth/login</code>) and create the API keys you need again (<code>hostctl auth token create</code>).</p>`;
  return {
    status: 200,
    title: 'Your password was changed',
    body: markup`<div class="done" role="status"><p>The account <strong>${email}</strong> has its new password.</p></div>
<h2>What else happened</h2>
<p>In case someone else had access to the account:</p>
<ul>
<li>Every session was signed out, on every device.</li>
<li>${keys}</li>
<li>Every webhook endpoint was disabled: turn on again only those you recognise.</li>
</ul>
<p>A notice about the reset went to ${email}. Two-factor sign-in, if it was on, stays on.</p>
${next}`,
  };
}

export function resetLinkFailedPage(): Page {
  return errorPage(
    400,
    'This reset link does not work',
    'The link is invalid, has expired or was already used. A reset link works once, for one hour, and a newer link replaces it.',
    markup`<p>Ask for a new link (your dashboard's "Forgot password", or <code>POST /api/auth/password/forgot</code> with your email address) and open the newest mail.</p>`,
  );
}
