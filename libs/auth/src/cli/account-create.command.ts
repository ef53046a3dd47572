import { Injectable } from '@nestjs/common';
import { CliArgs, CliCommand, requireArg } from '@app/core';
import { AccountsService } from '../accounts/accounts.service';
import { AccountResponse } from '../dto/auth.response';
import { RegisterRequest } from '../dto/auth.request';
import { validateInput } from './validate-input';

@Injectable()
export class AccountCreateCommand extends CliCommand {
  readonly name = 'account:create';
  readonly usage = 'account:create --email <email> --password <password> --name <name>';
  readonly options = ['email', 'password', 'name'];

  constructor(private readonly accounts: AccountsService) {
    super();
  }

  async run(args: CliArgs): Promise<unknown[]> {
    const input = await validateInput(RegisterRequest, {
      email: requireArg(args, 'email'),
      password: requireArg(args, 'password'),
      name: requireArg(args, 'name'),
    });
    return [AccountResponse.from(await this.accounts.create(input))];
  }
}
