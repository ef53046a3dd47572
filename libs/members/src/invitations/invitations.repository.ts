import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { countRows, PageQuery, pageOfRows, Role, RowsPage, runSql, sqlCount, sqlFirst } from '@app/core';

export interface InvitationRow {
  id: string;
  account_id: string;
  email: string;
  role: Role;
  invited_by: string | null;
  created_at: Date;
  expires_at: Date;
}

const COLUMNS = 'id, account_id, email, role, invited_by, created_at, expires_at';
const PENDING = 'account_id = $1 AND accepted_at IS NULL AND expires_at > now()';

/** Every statement on account_invitations; the token only ever as its SHA-256. */
@Injectable()
export class InvitationsRepository {
  constructor(private readonly dataSource: DataSource) {}

  async insert(
    manager: EntityManager,
    invitation: { accountId: string; email: string; role: Role; tokenHash: string; invitedBy: string | null; ttlHours: number },
  ): Promise<InvitationRow> {
    return (await sqlFirst<InvitationRow>(
      manager,
      `INSERT INTO account_invitations (account_id, email, role, token_hash, invited_by, expires_at)
        VALUES ($1, $2, $3, $4, $5, now() + make_interval(hours => $6)) RETURNING ${COLUMNS}`,
      [invitation.accountId, invitation.email, invitation.role, invitation.tokenHash, invitation.invitedBy, invitation.ttlHours],
    ))!;
  }

  /** An expired invitation to the address no longer stands in the way of a new one. */
  async dropExpired(manager: EntityManager, accountId: string, email: string): Promise<void> {
    await runSql(
      manager,
      'DELETE FROM account_invitations WHERE account_id = $1 AND email = $2 AND accepted_at IS NULL AND expires_at <= now()',
      [accountId, email],
    );
  }

  pending(accountId: string, query: PageQuery): Promise<RowsPage<InvitationRow>> {
    return pageOfRows(this.dataSource, { table: 'account_invitations', columns: COLUMNS, where: PENDING, params: [accountId] }, query);
  }

  countPending(manager: EntityManager, accountId: string): Promise<number> {
    return countRows(manager, 'account_invitations', PENDING, [accountId]);
  }

  async deletePending(manager: EntityManager, accountId: string, id: string): Promise<InvitationRow | null> {
    return sqlFirst<InvitationRow>(manager, `DELETE FROM account_invitations WHERE id = $2 AND ${PENDING} RETURNING ${COLUMNS}`, [
      accountId,
      id,
    ]);
  }

  findPending(tokenHash: string): Promise<InvitationRow | null> {
    return sqlFirst<InvitationRow>(
      this.dataSource,
      `SELECT ${COLUMNS} FROM account_invitations WHERE token_hash = $1 AND accepted_at IS NULL AND expires_at > now()`,
      [tokenHash],
    );
  }

  /** The pending invitation with this token's hash, locked for its acceptance; null if none (unknown, used or expired). */
  lockByToken(manager: EntityManager, tokenHash: string): Promise<InvitationRow | null> {
    return sqlFirst<InvitationRow>(
      manager,
      `SELECT ${COLUMNS} FROM account_invitations WHERE token_hash = $1 AND accepted_at IS NULL AND expires_at > now() FOR UPDATE`,
      [tokenHash],
    );
  }

  async markAccepted(manager: EntityManager, id: string): Promise<boolean> {
    return (await sqlCount(manager, 'UPDATE account_invitations SET accepted_at = now() WHERE id = $1 AND accepted_at IS NULL', [id])) > 0;
  }
}
