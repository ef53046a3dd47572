import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { isUniqueViolation, Problem } from '@app/core';
import { Account } from './account.entity';
import { AccountsRepository } from './accounts.repository';
import { PasswordHasher } from './password-hasher';

export interface NewAccount {
  email: string;
  password: string;
  name: string;
}

const normalEmail = (email: string) => email.trim().toLowerCase();

/** The accounts table belongs here: other areas read and lock accounts only through this service. */
@Injectable()
export class AccountsService {
  constructor(
    @InjectRepository(Account) private readonly accounts: Repository<Account>,
    private readonly repository: AccountsRepository,
    private readonly hasher: PasswordHasher,
  ) {}

  async create(manager: EntityManager, input: NewAccount): Promise<Account> {
    const passwordHash = await this.hasher.hash(input.password);
    try {
      const account = manager.create(Account, { email: normalEmail(input.email), name: input.name.trim(), passwordHash });
      const saved = await manager.save(account);
      return manager.findOneOrFail(Account, { where: { id: saved.id } });
    } catch (err) {
      if (isUniqueViolation(err)) throw Problem.conflict('email_taken', 'An account with this email already exists.');
      throw err;
    }
  }

  /** With a manager: inside that transaction (on the embedded database, the only way from one). */
  findById(id: string, manager?: EntityManager): Promise<Account | null> {
    return manager ? manager.findOne(Account, { where: { id } }) : this.accounts.findOne({ where: { id } });
  }

  findByEmail(email: string): Promise<Account | null> {
    return this.accounts.findOne({ where: { email: normalEmail(email) } });
  }

  /** The name the account holder gave, or null for an unknown id. */
  async displayName(id: string): Promise<string | null> {
    const account = await this.accounts.findOne({ select: { id: true, name: true }, where: { id } });
    return account?.name ?? null;
  }

  async exists(): Promise<boolean> {
    return (await this.accounts.count({ take: 1 })) > 0;
  }

  /**
   * SELECT ... FOR UPDATE of the account row inside the caller's transaction: serialises work that
   * must see a consistent per-account count (key quotas). False for an unknown id.
   */
  lockForUpdate(manager: EntityManager, id: string): Promise<boolean> {
    return this.repository.lockForUpdate(manager, id);
  }

  /** The account if the password matches; the same work is done when the email is unknown. */
  async verifyPassword(email: string, password: string): Promise<Account | null> {
    const row = await this.repository.findWithPasswordHash(normalEmail(email));
    const ok = await this.hasher.verify(password, row?.passwordHash);
    if (!ok || !row) return null;
    if (this.hasher.needsRehash(row.passwordHash)) {
      await this.repository.replacePasswordHash(row.id, row.passwordHash, await this.hasher.hash(password));
    }
    return row;
  }

  async rename(manager: EntityManager, accountId: string, name: string): Promise<void> {
    await manager.update(Account, { id: accountId }, { name: name.trim() });
  }

  /** Confirms the address only if it is still the account's address. */
  markEmailVerified(manager: EntityManager, accountId: string, email: string): Promise<void> {
    return this.repository.markEmailVerified(manager, accountId, email);
  }

  /** Replaces the address with a confirmed one; 409 email_taken if another account has it now. */
  async changeEmail(manager: EntityManager, accountId: string, email: string): Promise<void> {
    try {
      await this.repository.changeEmail(manager, accountId, normalEmail(email));
    } catch (err) {
      if (isUniqueViolation(err)) throw Problem.conflict('email_taken', 'An account with this email already exists.');
      throw err;
    }
  }

  async setPassword(manager: EntityManager, accountId: string, password: string): Promise<void> {
    await manager.update(Account, { id: accountId }, { passwordHash: await this.hasher.hash(password) });
  }
}
