import { readFile } from 'node:fs/promises';
import { Injectable } from '@nestjs/common';
import { accountByEmail, AccountsService } from '@app/accounts';
import { CliArgs, CliCommand, CliUsageError, requireArg, staffActor, validateInput } from '@app/core';
import { CreateSshKeyRequest } from '../dto/ssh-key.request';
import { SshKeysService } from '../ssh-keys.service';

/** Adds a public key to an account from a file (`~/.ssh/id_ed25519.pub`): an operator's recipe needs no token. */
@Injectable()
export class SshKeyAddCommand extends CliCommand {
  readonly name = 'ssh-key:add';
  readonly usage = 'ssh-key:add --email <account> --name <name> --public-key-file <path of the .pub file>';
  readonly options = ['email', 'name', 'public-key-file'];

  constructor(
    private readonly accounts: AccountsService,
    private readonly keys: SshKeysService,
  ) {
    super();
  }

  async run(args: CliArgs): Promise<unknown[]> {
    const email = requireArg(args, 'email');
    const path = requireArg(args, 'public-key-file');
    const text = await readFile(path, 'utf8').catch((err: NodeJS.ErrnoException) => {
      throw new CliUsageError(`Cannot read ${path}: ${err.code ?? err.message}`);
    });
    if (/PRIVATE KEY/.test(text)) throw new CliUsageError(`${path} is a private key: give the public one (${path}.pub)`);
    const input = await validateInput(CreateSshKeyRequest, { name: requireArg(args, 'name'), publicKey: text.trim() });
    const account = await accountByEmail(this.accounts, email);
    return [await this.keys.createFor(account.id, input, { actor: staffActor() })];
  }
}
