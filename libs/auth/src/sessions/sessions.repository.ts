import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { ClientInfo, PageQuery, pageOfRows, poolQuery, RowsPage, runSql, sqlCount, sqlFirst, touchLastUsed } from '@app/core';
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

/** Every statement on sessions and refresh_tokens; the list and revocations owner-scoped. */
@Injectable()
export class SessionsRepository {
  constructor(private readonly dataSource: DataSource) {}

  insert(manager: EntityManager, accountId: string, expiresAt: Date, client?: ClientInfo): Promise<Session> {
    const where = { ip: client?.ip ?? null, userAgent: client?.userAgent ?? null };
    return manager.save(manager.create(Session, { accountId, expiresAt, revokedAt: null, ...where }));
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

  /** One primary-key lookup on every request with an access token, so on the driver's pool (poolQuery). */
  async isLive(accountId: string, id: string): Promise<boolean> {
    return (await this.liveUntil(accountId, id)) !== null;
  }

  /** When a live session ends by itself; null when it is not live. */
  async liveUntil(accountId: string, id: string): Promise<Date | null> {
    const rows = await poolQuery<{ expires_at: Date }>(this.dataSource, `SELECT expires_at FROM sessions WHERE id = $2 AND ${LIVE}`, [
      accountId,
      id,
    ]);
    return rows[0]?.expires_at ?? null;
  }

  touch(ids: string[]): Promise<void> {
    return touchLastUsed(this.dataSource, 'sessions', ids);
  }
}
