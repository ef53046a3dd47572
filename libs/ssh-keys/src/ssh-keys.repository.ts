import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, In, Repository } from 'typeorm';
import { pageOfEntities, PageQuery } from '@app/core';
import type { ParsedPublicKey } from './public-key-parser';
import { SshKey } from './ssh-key.entity';

/** Every statement on ssh_keys, owner-scoped: plain CRUD through TypeORM's `Repository<SshKey>`. */
@Injectable()
export class SshKeysRepository {
  constructor(@InjectRepository(SshKey) private readonly keys: Repository<SshKey>) {}

  countForAccount(manager: EntityManager, accountId: string): Promise<number> {
    return manager.count(SshKey, { where: { accountId } });
  }

  /** The saved key with its generated id and creation time (a unique violation for a key already in the account). */
  insert(manager: EntityManager, accountId: string, name: string, key: ParsedPublicKey): Promise<SshKey> {
    return manager.save(manager.create(SshKey, { accountId, name, ...key }));
  }

  /** The account's keys, newest first, and their total. */
  pageForAccount(accountId: string, query: PageQuery): Promise<[SshKey[], number]> {
    return pageOfEntities(this.keys, { accountId }, query);
  }

  findOneForAccount(accountId: string, id: string): Promise<SshKey | null> {
    return this.keys.findOne({ where: { id, accountId } });
  }

  /** `all`: every key of the account, else those of the ids that are the account's; oldest first. */
  findForAccount(manager: EntityManager, accountId: string, which: 'all' | string[]): Promise<SshKey[]> {
    if (which !== 'all' && which.length === 0) return Promise.resolve([]);
    const where = which === 'all' ? { accountId } : { accountId, id: In(which) };
    return manager.find(SshKey, { where, order: { createdAt: 'ASC', id: 'ASC' } });
  }

  /** One owner-scoped UPDATE; false when the account has no such key. */
  async renameForAccount(manager: EntityManager, accountId: string, id: string, name: string): Promise<boolean> {
    const result = await manager.update(SshKey, { id, accountId }, { name });
    return !!result.affected;
  }

  async deleteForAccount(manager: EntityManager, accountId: string, id: string): Promise<boolean> {
    const result = await manager.delete(SshKey, { id, accountId });
    return !!result.affected;
  }
}
