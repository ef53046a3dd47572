import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, EntityManager, Repository } from 'typeorm';
import { runSql, sqlRows } from '@app/core';
import { Account } from './account.entity';
import type { AccountView } from './account.view';

/**
 * Every statement on the accounts table: plain reads and saves through TypeORM's
 * `Repository<Account>`, the password hash read and its upgrade, a row lock and the conditional updates.
 * The hash leaves only `findWithPasswordHash`; everything else returns the account view.
 */
@Injectable()
export class AccountsRepository {
  constructor(
    private readonly dataSource: DataSource,
    @InjectRepository(Account) private readonly accounts: Repository<Account>,
  ) {}

  /** The saved row as read back (a unique violation if the email is taken). */
  async insert(manager: EntityManager, account: Pick<Account, 'email' | 'name' | 'passwordHash'>): Promise<AccountView> {
    const saved = await manager.save(manager.create(Account, account));
    return manager.findOneOrFail(Account, { where: { id: saved.id } });
  }

  /** With a manager: inside that transaction (on the embedded database, the only way from one). */
  findById(id: string, manager?: EntityManager): Promise<AccountView | null> {
    return manager ? manager.findOne(Account, { where: { id } }) : this.accounts.findOne({ where: { id } });
  }

  findByEmail(email: string): Promise<AccountView | null> {
    return this.accounts.findOne({ where: { email } });
  }

  async findName(id: string): Promise<string | null> {
    const account = await this.accounts.findOne({ select: { id: true, name: true }, where: { id } });
    return account?.name ?? null;
  }

  async any(): Promise<boolean> {
    return (await this.accounts.count({ take: 1 })) > 0;
  }

  /** The account with its password hash (a column never selected otherwise), or null. */
  async findWithPasswordHash(email: string): Promise<{ account: AccountView; passwordHash: string } | null> {
    const row = await this.accounts.createQueryBuilder('a').addSelect('a.passwordHash').where('a.email = :email', { email }).getOne();
    if (!row) return null;
    const { passwordHash, ...account } = row;
    return { account, passwordHash };
  }

  /** SELECT ... FOR UPDATE of the account row; false for an unknown id. */
  async lockForUpdate(manager: EntityManager, id: string): Promise<boolean> {
    const rows = await sqlRows(manager, 'SELECT id FROM accounts WHERE id = $1 FOR UPDATE', [id]);
    return rows.length > 0;
  }

  async rename(manager: EntityManager, id: string, name: string): Promise<void> {
    await manager.update(Account, { id }, { name });
  }

  async setPasswordHash(manager: EntityManager, id: string, passwordHash: string): Promise<void> {
    await manager.update(Account, { id }, { passwordHash });
  }

  /** Swaps in a hash made with the current parameters, unless the password changed meanwhile. */
  async replacePasswordHash(id: string, previous: string, next: string): Promise<void> {
    await runSql(this.dataSource, 'UPDATE accounts SET password_hash = $3 WHERE id = $1 AND password_hash = $2', [id, previous, next]);
  }

  /** Marks the address confirmed only while it is still the account's address. */
  async markEmailVerified(manager: EntityManager, accountId: string, email: string): Promise<void> {
    await runSql(manager, 'UPDATE accounts SET email_verified_at = now() WHERE id = $1 AND email = $2 AND email_verified_at IS NULL', [
      accountId,
      email,
    ]);
  }

  /** Replaces the address with a confirmed one (a unique violation if another account has it). */
  async changeEmail(manager: EntityManager, accountId: string, email: string): Promise<void> {
    await runSql(manager, 'UPDATE accounts SET email = $2, email_verified_at = now(), updated_at = now() WHERE id = $1', [
      accountId,
      email,
    ]);
  }
}
