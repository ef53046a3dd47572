import { declareActivityActions } from '@app/core';

/** What the activity log records of accounts, sign-ins, sessions and the second factor. */
export const AUTH_ACTIONS = declareActivityActions(10, [
  'account.register',
  'account.update',
  'account.email_verify',
  'account.email_change',
  'auth.login',
  'auth.login_failed',
  'auth.password_check_failed',
  'auth.failures_summary',
  'auth.logout',
  'auth.password_change',
  'auth.password_reset_request',
  'auth.password_reset',
  'session.revoke',
  'session.revoke_all',
  'two_factor.setup',
  'two_factor.enable',
  'two_factor.disable',
] as const);

declare module '@app/core' {
  interface AreaEvents {
    auth: { actions: (typeof AUTH_ACTIONS)[number]; events: never };
  }
}
