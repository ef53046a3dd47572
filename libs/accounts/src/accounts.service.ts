import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { isUniqueViolation, Problem } from '@app/core';
import type { AccountView } from './account.view';
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
    private readonly repository: AccountsRepository,
    private readonly hasher: PasswordHasher,
  ) {}

  async create(manager: EntityManager, input: NewAccount): Promise<AccountView> {
    const passwordHash = await this.hasher.hash(input.password);
    try {
      return await this.repository.insert(manager, { email: normalEmail(input.email), name: input.name.trim(), passwordHash });
    } catch (err) {
      if (isUniqueViolation(err)) throw Problem.conflict('email_taken', 'An account with this email already exists.');
      throw err;
    }
  }

  /** With a manager: inside that transaction (on the embedded database, the only way from one). */
  findById(id: string, manager?: EntityManager): Promise<AccountView | null> {
    return this.repository.findById(id, manager);
  }

  findByEmail(email: string): Promise<AccountView | null> {
    return this.repository.findByEmail(normalEmail(email));
  }

  /** The name the account holder gave, or null for an unknown id. */
  displayName(id: string): Promise<string | null> {
    return this.repository.findName(id);
  }

  exists(): Promise<boolean> {
    return this.repository.any();
  }

  /**
   * SELECT ... FOR UPDATE of the account row inside the caller's transaction: serialises work that
   * must see a consistent per-account count (key quotas). False for an unknown id.
   */
  lockForUpdate(manager: EntityManager, id: string): Promise<boolean> {
    return this.repository.lockForUpdate(manager, id);
  }

  /** The account if the password matches; the same work is done when the email is unknown. */
  async verifyPassword(email: string, password: string): Promise<AccountView | null> {
    const row = await this.repository.findWithPasswordHash(normalEmail(email));
    const ok = await this.hasher.verify(password, row?.passwordHash);
    if (!ok || !row) return null;
    if (this.hasher.needsRehash(row.passwordHash)) {
      await this.repository.replacePasswordHash(row.account.id, row.passwordHash, await this.hasher.hash(password));
    }
    return row.account;
  }

  rename(manager: EntityManager, accountId: string, name: string): Promise<void> {
    return this.repository.rename(manager, accountId, name.trim());
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
    await this.repository.setPasswordHash(manager, accountId, await this.hasher.hash(password));
  }
}
