import { Injectable } from '@nestjs/common';
import { accountByEmail, AccountsService } from '@app/accounts';
import { CliArgs, CliCommand, requireArg, staffActor, validateInput } from '@app/core';
import { ApiKeysService } from '../api-keys.service';
import { CreateApiKeyRequest } from '../dto/create-api-key.request';

@Injectable()
export class ApiKeyCreateCommand extends CliCommand {
  readonly name = 'api-key:create';
  readonly usage = 'api-key:create --email <account> --name <name> [--scopes read,write] [--expires-at <ISO date>]';
  readonly options = ['email', 'name', 'scopes', 'expires-at'];

  constructor(
    private readonly accounts: AccountsService,
    private readonly apiKeys: ApiKeysService,
  ) {
    super();
  }

  async run(args: CliArgs): Promise<unknown[]> {
    const email = requireArg(args, 'email');
    const input = await validateInput(CreateApiKeyRequest, {
      name: requireArg(args, 'name'),
      ...(typeof args.scopes === 'string' ? { scopes: args.scopes.split(',').map((s) => s.trim()) } : {}),
      ...(typeof args['expires-at'] === 'string' ? { expiresAt: args['expires-at'] } : {}),
    });
    const account = await accountByEmail(this.accounts, email);
    return [await this.apiKeys.createFromRequest(account.id, input, undefined, staffActor())];
  }
}
