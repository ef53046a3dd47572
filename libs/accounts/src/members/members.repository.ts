import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { countRows, PageQuery, pageOffset, Role, RowsPage, runSql, sqlFirst, sqlRows } from '@app/core';

/** A member as lists show it: the membership with its login's address and name. */
export interface MemberRow {
  id: string;
  account_id: string;
  login_id: string;
  email: string;
  name: string;
  role: Role;
  joined_at: Date;
}

/** One of a login's accounts: its id, its name and the login's role there. */
export interface LoginAccountRow {
  account_id: string;
  name: string;
  role: Role;
}

const MEMBER_COLUMNS = `m.id, m.account_id, m.login_id, a.email, a.name, m.role, m.joined_at`;
const MEMBERS = `account_members m JOIN accounts a ON a.id = m.login_id`;

/** Every statement on account_members; each scoped to its account (or, for the login's own list, to the login). */
@Injectable()
export class MembersRepository {
  constructor(private readonly dataSource: DataSource) {}

  async insert(manager: EntityManager, accountId: string, loginId: string, role: Role): Promise<string> {
    const row = await sqlFirst<{ id: string }>(
      manager,
      `INSERT INTO account_members (account_id, login_id, role) VALUES ($1, $2, $3) RETURNING id`,
      [accountId, loginId, role],
    );
    return row!.id;
  }

  async page(accountId: string, query: PageQuery): Promise<RowsPage<MemberRow>> {
    const rows = await sqlRows<MemberRow>(
      this.dataSource,
      `SELECT ${MEMBER_COLUMNS} FROM ${MEMBERS} WHERE m.account_id = $1 ORDER BY m.joined_at, m.id LIMIT $2 OFFSET $3`,
      [accountId, query.pageSize, pageOffset(query)],
    );
    const total = await countRows(this.dataSource, 'account_members', 'account_id = $1', [accountId]);
    return { rows, total };
  }

  find(accountId: string, memberId: string, manager?: EntityManager): Promise<MemberRow | null> {
    return sqlFirst<MemberRow>(
      manager ?? this.dataSource,
      `SELECT ${MEMBER_COLUMNS} FROM ${MEMBERS} WHERE m.account_id = $1 AND m.id = $2`,
      [accountId, memberId],
    );
  }

  findByLogin(accountId: string, loginId: string, manager?: EntityManager): Promise<MemberRow | null> {
    return sqlFirst<MemberRow>(
      manager ?? this.dataSource,
      `SELECT ${MEMBER_COLUMNS} FROM ${MEMBERS} WHERE m.account_id = $1 AND m.login_id = $2`,
      [accountId, loginId],
    );
  }

  findByEmail(accountId: string, email: string, manager?: EntityManager): Promise<MemberRow | null> {
    return sqlFirst<MemberRow>(
      manager ?? this.dataSource,
      `SELECT ${MEMBER_COLUMNS} FROM ${MEMBERS} WHERE m.account_id = $1 AND a.email = $2`,
      [accountId, email],
    );
  }

  /** The account's members, locked in this transaction: role changes and removals are decided one at a time. */
  lockAll(manager: EntityManager, accountId: string): Promise<{ id: string; role: Role }[]> {
    return sqlRows(manager, `SELECT id, role FROM account_members WHERE account_id = $1 ORDER BY id FOR UPDATE`, [accountId]);
  }

  async count(manager: EntityManager, accountId: string): Promise<number> {
    return countRows(manager, 'account_members', 'account_id = $1', [accountId]);
  }

  async setRole(manager: EntityManager, memberId: string, role: Role): Promise<void> {
    await runSql(manager, `UPDATE account_members SET role = $2 WHERE id = $1`, [memberId, role]);
  }

  async remove(manager: EntityManager, memberId: string): Promise<void> {
    await runSql(manager, `DELETE FROM account_members WHERE id = $1`, [memberId]);
  }

  /** The login's accounts, the one it registered first, then by when it joined. */
  accountsOfLogin(loginId: string, manager?: EntityManager): Promise<LoginAccountRow[]> {
    return sqlRows<LoginAccountRow>(
      manager ?? this.dataSource,
      `SELECT m.account_id, a.name, m.role FROM account_members m JOIN accounts a ON a.id = m.account_id
        WHERE m.login_id = $1 ORDER BY m.account_id = m.login_id DESC, m.joined_at, m.account_id`,
      [loginId],
    );
  }

  async firstOwner(accountId: string, manager?: EntityManager): Promise<string | null> {
    const row = await sqlFirst<{ id: string }>(
      manager ?? this.dataSource,
      `SELECT id FROM account_members WHERE account_id = $1 AND role = 'owner' ORDER BY login_id = account_id DESC, joined_at LIMIT 1`,
      [accountId],
    );
    return row?.id ?? null;
  }

  /** The owners' addresses (member changes are mailed to them). */
  ownerEmails(manager: EntityManager, accountId: string): Promise<{ email: string; name: string }[]> {
    return sqlRows(manager, `SELECT a.email, a.name FROM ${MEMBERS} WHERE m.account_id = $1 AND m.role = 'owner' ORDER BY m.joined_at`, [
      accountId,
    ]);
  }
}
