import { CliUsageError } from '@app/core';
import type { AccountView } from '../account.view';
import type { AccountsService } from '../accounts.service';

/** The account an operator command names by `--email`: an address no account has is a usage error. */
export async function accountByEmail(accounts: AccountsService, email: string): Promise<AccountView> {
  const account = await accounts.findByEmail(email);
  if (!account) throw new CliUsageError(`No account with email ${email}`);
  return account;
}
