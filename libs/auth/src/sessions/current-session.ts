import type { AccountsService, AccountView } from '@app/accounts';
import { Principal, Problem } from '@app/core';

/** The session of an access token; API keys (the automation path) get 403, as for logout. */
export function currentSessionOf(principal: Principal): string {
  if (principal.kind !== 'access_token') {
    throw new Problem(403, 'forbidden', 'This operation needs an access token from a login, not an API key.');
  }
  return principal.credentialId;
}

/** The caller's own account; 401 if it is gone (a token that outlived it). */
export async function callerAccount(accounts: AccountsService, accountId: string): Promise<AccountView> {
  const account = await accounts.findById(accountId);
  if (!account) throw Problem.unauthorized();
  return account;
}
