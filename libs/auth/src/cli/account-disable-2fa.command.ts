import { Injectable } from '@nestjs/common';
import { accountByEmail, AccountsService } from '@app/accounts';
import { CliArgs, CliCommand, requireArg, staffActor } from '@app/core';
import { MfaService } from '../mfa/mfa.service';

/** Recovery for an owner locked out by a second factor they do not hold (docs/security.md, "An owner locked out by a second factor"). */
@Injectable()
export class AccountDisable2faCommand extends CliCommand {
  readonly name = 'account:disable-2fa';
  readonly usage = 'account:disable-2fa --email <account>';
  readonly options = ['email'];

  constructor(
    private readonly accounts: AccountsService,
    private readonly mfa: MfaService,
  ) {
    super();
  }

  async run(args: CliArgs): Promise<unknown[]> {
    const email = requireArg(args, 'email');
    const account = await accountByEmail(this.accounts, email);
    const disabled = await this.mfa.disableByOperator(account.id, staffActor());
    return [{ id: account.id, email: account.email, twoFactor: 'off', changed: disabled, sessionsEnded: disabled }];
  }
}
