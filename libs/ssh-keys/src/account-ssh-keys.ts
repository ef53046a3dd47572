import { Injectable } from '@nestjs/common';
import { EntityManager, In } from 'typeorm';
import { Problem } from '@app/core';
import { SshKey } from './ssh-key.entity';

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
  /** `all`: every key of the account, oldest first; ids: exactly those, or 404 if one is not the account's. */
  async keysFor(manager: EntityManager, accountId: string, which: 'all' | string[]): Promise<AuthorizedKey[]> {
    const where = which === 'all' ? { accountId } : { accountId, id: In(which) };
    const keys = which !== 'all' && which.length === 0 ? [] : await manager.find(SshKey, { where, order: { createdAt: 'ASC', id: 'ASC' } });
    if (which !== 'all' && new Set(keys.map((k) => k.id)).size !== new Set(which).size) throw Problem.notFound('SSH key');
    return keys.map(({ id, name, publicKey, fingerprint }) => ({ id, name, publicKey, fingerprint }));
  }
}
