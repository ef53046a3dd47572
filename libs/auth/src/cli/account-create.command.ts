import { Injectable } from '@nestjs/common';
import { AccountsService } from '@app/accounts';
import { CliArgs, CliCommand, requireArg, TransactionRunner, validateInput } from '@app/core';
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
  ) {
    super();
  }

  async run(args: CliArgs): Promise<unknown[]> {
    const input = await validateInput(RegisterRequest, {
      email: requireArg(args, 'email'),
      password: requireArg(args, 'password'),
      name: requireArg(args, 'name'),
    });
    return [AccountResponse.from(await this.tx.run((m) => this.accounts.create(m, input)))];
  }
}
