import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { ClientInfo, PageQuery, pageOfRows, poolQuery, Role, RowsPage, runSql, sqlCount, sqlFirst, touchLastUsed } from '@app/core';
import { RefreshToken } from './refresh-token.entity';
import { Session } from './session.entity';

export interface SessionRow {
  id: string;
  created_at: Date;
  last_used_at: Date | null;
  ip: string | null;
  user_agent: string | null;
}

const LIVE = 'account_id = $1 AND revoked_at IS NULL AND expires_at > now()';

/** A live session's answer for a request: when it ends, its login's address, and the login's membership of the token's account. */
export interface SessionGrantRow {
  expires_at: Date;
  email: string;
  member_id: string | null;
  role: Role | null;
}

/** Every statement on sessions and refresh_tokens; the list and revocations owner-scoped. */
@Injectable()
export class SessionsRepository {
  constructor(private readonly dataSource: DataSource) {}

  insert(manager: EntityManager, accountId: string, currentAccountId: string, expiresAt: Date, client?: ClientInfo): Promise<Session> {
    const where = { ip: client?.ip ?? null, userAgent: client?.userAgent ?? null };
    return manager.save(manager.create(Session, { accountId, currentAccountId, expiresAt, revokedAt: null, ...where }));
  }

  async setCurrentAccount(manager: EntityManager, id: string, accountId: string): Promise<void> {
    await manager.update(Session, { id }, { currentAccountId: accountId });
  }

  /** The session's refresh tokens not yet used are void (a switch hands out a new one). */
  async dropUnusedRefreshTokens(manager: EntityManager, sessionId: string): Promise<void> {
    await runSql(manager, 'DELETE FROM refresh_tokens WHERE session_id = $1 AND used_at IS NULL', [sessionId]);
  }

  /** The login's live session, locked; null if there is none with this id. */
  lockLive(manager: EntityManager, loginId: string, id: string): Promise<Session | null> {
    return manager
      .createQueryBuilder(Session, 's')
      .setLock('pessimistic_write')
      .where('s.id = :id AND s.account_id = :loginId AND s.revoked_at IS NULL AND s.expires_at > now()', { id, loginId })
      .getOne();
  }

  /** Ends a session whatever its state (a spent refresh token presented again). */
  async markRevoked(manager: EntityManager, id: string): Promise<void> {
    await manager.update(Session, { id }, { revokedAt: new Date() });
  }

  async insertRefreshToken(manager: EntityManager, sessionId: string, tokenHash: string): Promise<void> {
    await manager.insert(RefreshToken, { sessionId, tokenHash, usedAt: null });
  }

  async markRefreshTokenUsed(manager: EntityManager, id: string): Promise<void> {
    await manager.update(RefreshToken, { id }, { usedAt: new Date() });
  }

  listLive(accountId: string, query: PageQuery): Promise<RowsPage<SessionRow>> {
    const columns = 'id, created_at, last_used_at, ip, user_agent';
    return pageOfRows(this.dataSource, { table: 'sessions', columns, where: LIVE, params: [accountId] }, query);
  }

  /** The refresh token with this hash and its session, both locked for the rotation; null if either is missing. */
  async lockForRotation(manager: EntityManager, tokenHash: string): Promise<{ token: RefreshToken; session: Session } | null> {
    const token = await manager
      .createQueryBuilder(RefreshToken, 't')
      .setLock('pessimistic_write')
      .where('t.token_hash = :tokenHash', { tokenHash })
      .getOne();
    if (!token) return null;
    const session = await manager.findOne(Session, { where: { id: token.sessionId }, lock: { mode: 'pessimistic_write' } });
    return session ? { token, session } : null;
  }

  /** Ends one of the account's live sessions; false if there is none with this id. */
  async revokeForAccount(manager: EntityManager, accountId: string, id: string): Promise<boolean> {
    const revoked = await sqlCount(manager, `UPDATE sessions SET revoked_at = now() WHERE id = $2 AND ${LIVE}`, [accountId, id]);
    return revoked > 0;
  }

  /** Ends a live session by id (the caller's own); its account id, or null if it was not live. */
  async revoke(manager: EntityManager, id: string): Promise<string | null> {
    const row = await sqlFirst<{ account_id: string }>(
      manager,
      'UPDATE sessions SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL RETURNING account_id',
      [id],
    );
    return row?.account_id ?? null;
  }

  async revokeAllExcept(manager: EntityManager, accountId: string, keepSessionId: string | null): Promise<void> {
    await runSql(
      manager,
      `UPDATE sessions SET revoked_at = now() WHERE account_id = $1 AND revoked_at IS NULL AND id IS DISTINCT FROM $2`,
      [accountId, keepSessionId],
    );
  }

  /**
   * Runs on every request with an access token (so on the driver's pool, poolQuery): the live session
   * by primary key, its login's address and the login's membership of `onAccountId`; null when the
   * session is not live. `member_id` and `role` are null when the login is no member of that account.
   */
  async liveGrant(loginId: string, id: string, onAccountId: string): Promise<SessionGrantRow | null> {
    const rows = await poolQuery<SessionGrantRow>(
      this.dataSource,
      `SELECT s.expires_at, l.email, m.id AS member_id, m.role
        FROM sessions s JOIN accounts l ON l.id = s.account_id
        LEFT JOIN account_members m ON m.account_id = $3 AND m.login_id = s.account_id
        WHERE s.id = $2 AND s.account_id = $1 AND s.revoked_at IS NULL AND s.expires_at > now()`,
      [loginId, id, onAccountId],
    );
    return rows[0] ?? null;
  }

  /** A live session's login's role on an account, by the session id alone (a console's recheck); null if either is gone. */
  async roleOn(id: string, accountId: string): Promise<Role | null> {
    const row = await sqlFirst<{ role: Role }>(
      this.dataSource,
      `SELECT m.role FROM sessions s JOIN account_members m ON m.account_id = $2 AND m.login_id = s.account_id
        WHERE s.id = $1 AND s.revoked_at IS NULL AND s.expires_at > now()`,
      [id, accountId],
    );
    return row?.role ?? null;
  }

  touch(ids: string[]): Promise<void> {
    return touchLastUsed(this.dataSource, 'sessions', ids);
  }
}
