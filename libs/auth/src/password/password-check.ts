import { Injectable } from '@nestjs/common';
import { AccountsService, AccountView } from '@app/accounts';
import { PasswordFailures, Principal, Problem } from '@app/core';
import { LoginActivity, PasswordCheckOperation } from '../login/login-activity';

/**
 * The current password of a signed-in caller (password change, email change, two-factor enable
 * and disable): the same failure budget per account and IP as sign-in, so a stolen access token
 * is no unlimited password oracle, and each wrong password is an `auth.password_check_failed` entry.
 */
@Injectable()
export class PasswordCheck {
  constructor(
    private readonly accounts: AccountsService,
    private readonly failures: PasswordFailures,
    private readonly logins: LoginActivity,
  ) {}

  /** 429 once the budget is spent; 400 naming `field` for a wrong password. */
  async confirm(
    principal: Principal,
    account: AccountView,
    password: string,
    operation: PasswordCheckOperation,
    field: string,
  ): Promise<void> {
    const ip = principal.request?.ip;
    await this.failures.check(account.email, ip);
    if (await this.accounts.verifyPassword(account.email, password)) return;
    await this.failures.failed(account.email, ip);
    await this.logins.failed(
      { accountId: account.id },
      { action: 'auth.password_check_failed', reason: 'wrong_password', operation },
      principal.request,
    );
    throw Problem.invalidInput(`${field} is incorrect.`, [{ field, message: 'is incorrect' }]);
  }
}
