import { Injectable } from '@nestjs/common';
import { AccountsService } from '@app/accounts';
import { ActivityLog, CliArgs, CliCommand, requireArg, staffActor, TransactionRunner, validateInput } from '@app/core';
import { AccountResponse } from '../dto/auth.response';
import { RegisterRequest } from '../dto/auth.request';

@Injectable()
export class AccountCreateCommand extends CliCommand {
  readonly name = 'account:create';
  readonly usage = 'account:create --email <email> --password <password> --name <name> [--email-verified]';
  readonly options = ['email', 'password', 'name'];
  /** The operator vouches for the address (a customer they set up): no confirmation mail is needed to create API keys. */
  override readonly flags = ['email-verified'];

  constructor(
    private readonly accounts: AccountsService,
    private readonly tx: TransactionRunner,
    private readonly activity: ActivityLog,
  ) {
    super();
  }

  async run(args: CliArgs): Promise<unknown[]> {
    const input = await validateInput(RegisterRequest, {
      email: requireArg(args, 'email'),
      password: requireArg(args, 'password'),
      name: requireArg(args, 'name'),
    });
    const account = await this.tx.run(async (m) => {
      const created = await this.accounts.create(m, input);
      await this.activity.record(m, {
        accountId: created.id,
        action: 'account.register',
        entity: { type: 'account', id: created.id },
        actor: staffActor(),
      });
      if (args['email-verified'] !== true) return created;
      await this.accounts.markEmailVerified(m, created.id, created.email);
      await this.activity.record(m, {
        accountId: created.id,
        action: 'account.email_verify',
        entity: { type: 'account', id: created.id },
        actor: staffActor(),
      });
      return (await this.accounts.findById(created.id, m))!;
    });
    return [AccountResponse.from(account)];
  }
}
