import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { isUniqueViolation, PageQuery, Problem, Role, RowsPage } from '@app/core';
import type { AccountView } from './account.view';
import { AccountsRepository } from './accounts.repository';
import { LoginAccountRow, MemberRow, MembersRepository } from './members/members.repository';
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
    private readonly memberships: MembersRepository,
  ) {}

  /** A login and its own account, of which it is the only member, an owner (a trigger adds the membership). */
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

  /** The login's accounts with its role on each, its own first. */
  accountsOf(loginId: string, manager?: EntityManager): Promise<LoginAccountRow[]> {
    return this.memberships.accountsOfLogin(loginId, manager);
  }

  membership(accountId: string, loginId: string, manager?: EntityManager): Promise<MemberRow | null> {
    return this.memberships.findByLogin(accountId, loginId, manager);
  }

  member(accountId: string, memberId: string, manager?: EntityManager): Promise<MemberRow | null> {
    return this.memberships.find(accountId, memberId, manager);
  }

  memberByEmail(accountId: string, email: string, manager?: EntityManager): Promise<MemberRow | null> {
    return this.memberships.findByEmail(accountId, normalEmail(email), manager);
  }

  listMembers(accountId: string, query: PageQuery): Promise<RowsPage<MemberRow>> {
    return this.memberships.page(accountId, query);
  }

  addMember(manager: EntityManager, accountId: string, loginId: string, role: Role): Promise<string> {
    return this.memberships.insert(manager, accountId, loginId, role);
  }

  /** Locks the account's memberships for a change decided against all of them (the last owner). */
  lockMembers(manager: EntityManager, accountId: string): Promise<{ id: string; role: Role }[]> {
    return this.memberships.lockAll(manager, accountId);
  }

  countMembers(manager: EntityManager, accountId: string): Promise<number> {
    return this.memberships.count(manager, accountId);
  }

  setMemberRole(manager: EntityManager, memberId: string, role: Role): Promise<void> {
    return this.memberships.setRole(manager, memberId, role);
  }

  /** Its API keys go with it (ON DELETE CASCADE): every process forgets them on the change notice. */
  removeMember(manager: EntityManager, memberId: string): Promise<void> {
    return this.memberships.remove(manager, memberId);
  }

  /** The account's first owner's membership (its founding login while it is an owner): whose a key made by an operator is. */
  firstOwner(accountId: string, manager?: EntityManager): Promise<string | null> {
    return this.memberships.firstOwner(accountId, manager);
  }

  ownerEmails(manager: EntityManager, accountId: string): Promise<{ email: string; name: string }[]> {
    return this.memberships.ownerEmails(manager, accountId);
  }
}
