import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { Problem } from '@app/core';
import { SshKeysRepository } from './ssh-keys.repository';

export interface AuthorizedKey {
  id: string;
  name: string;
  /** The OpenSSH public key line, as stored. */
  publicKey: string;
  fingerprint: string;
}

/**
 * What other areas may read of an account's SSH keys (the VPS seed puts them into a machine):
 * public halves only, looked up by owner, in the caller's transaction when it has one.
 */
@Injectable()
export class AccountSshKeys {
  constructor(private readonly repository: SshKeysRepository) {}

  /** `all`: every key of the account, oldest first; ids: exactly those, or 404 if one is not the account's. */
  async keysFor(manager: EntityManager, accountId: string, which: 'all' | string[]): Promise<AuthorizedKey[]> {
    const keys = await this.repository.findForAccount(manager, accountId, which);
    if (which !== 'all' && new Set(keys.map((k) => k.id)).size !== new Set(which).size) throw Problem.notFound('SSH key');
    return keys.map(({ id, name, publicKey, fingerprint }) => ({ id, name, publicKey, fingerprint }));
  }
}
