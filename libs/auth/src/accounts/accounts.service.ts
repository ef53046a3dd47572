import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { isUniqueViolation, Problem } from '@app/core';
import { Account } from './account.entity';
import { PasswordHasher } from './password-hasher';

export interface NewAccount {
  email: string;
  password: string;
  name: string;
}

@Injectable()
export class AccountsService {
  constructor(
    @InjectRepository(Account) private readonly accounts: Repository<Account>,
    private readonly hasher: PasswordHasher,
  ) {}

  async create(input: NewAccount, manager: EntityManager = this.accounts.manager): Promise<Account> {
    const passwordHash = await this.hasher.hash(input.password);
    try {
      const account = manager.create(Account, { email: input.email.trim().toLowerCase(), name: input.name.trim(), passwordHash });
      const saved = await manager.save(account);
      return this.findById(saved.id, manager) as Promise<Account>;
    } catch (err) {
      if (isUniqueViolation(err)) throw Problem.conflict('email_taken', 'An account with this email already exists.');
      throw err;
    }
  }

  findById(id: string, manager: EntityManager = this.accounts.manager): Promise<Account | null> {
    return manager.findOne(Account, { where: { id } });
  }

  findByEmail(email: string): Promise<Account | null> {
    return this.accounts.findOne({ where: { email: email.trim().toLowerCase() } });
  }

  /** The account if the password matches; the same work is done when the email is unknown. */
  async verifyPassword(email: string, password: string): Promise<Account | null> {
    const row = await this.accounts
      .createQueryBuilder('a')
      .addSelect('a.passwordHash')
      .where('a.email = :email', { email: email.trim().toLowerCase() })
      .getOne();
    const ok = await this.hasher.verify(password, row?.passwordHash);
    return ok && row ? row : null;
  }

  async setPassword(accountId: string, password: string, manager: EntityManager): Promise<void> {
    await manager.update(Account, { id: accountId }, { passwordHash: await this.hasher.hash(password) });
  }
}
