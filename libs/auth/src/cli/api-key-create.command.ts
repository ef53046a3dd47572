import { Injectable } from '@nestjs/common';
import { ApiKeysService } from '@app/api-keys';
import { CliArgs, CliCommand, CliUsageError, requireArg } from '@app/core';
import { AccountsService } from '../accounts/accounts.service';
import { CreateApiKeyRequest } from '@app/api-keys';
import { validateInput } from './validate-input';

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
    const account = await this.accounts.findByEmail(email);
    if (!account) throw new CliUsageError(`No account with email ${email}`);
    const expiresAt = input.expiresAt ? new Date(input.expiresAt) : null;
    if (expiresAt && expiresAt.getTime() <= Date.now()) throw new CliUsageError('--expires-at must be in the future');
    return [await this.apiKeys.create(account.id, { name: input.name, scopes: input.scopes, expiresAt })];
  }
}
