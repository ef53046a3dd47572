import { Injectable } from '@nestjs/common';
import { AccountsService } from '@app/accounts';
import { ActivityLog, CliArgs, CliCommand, requireArg, staffActor, TransactionRunner, validateInput } from '@app/core';
import { AccountResponse } from '../dto/auth.response';
import { RegisterRequest } from '../dto/auth.request';

@Injectable()
export class AccountCreateCommand extends CliCommand {
  readonly name = 'account:create';
  readonly usage = 'account:create --email <email> --password <password> --name <name>';
  readonly options = ['email', 'password', 'name'];

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
      return created;
    });
    return [AccountResponse.from(account)];
  }
}
