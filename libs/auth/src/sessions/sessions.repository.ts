import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { isoText, pageOffset, PageQuery } from '@app/core';

export interface SessionRow {
  id: string;
  created_at: string;
  last_used_at: string | null;
  ip: string | null;
  user_agent: string | null;
}

const LIVE = 'account_id = $1 AND revoked_at IS NULL AND expires_at > now()';

/** The owner-scoped queries of the sessions list and revocation. */
@Injectable()
export class SessionsRepository {
  constructor(private readonly dataSource: DataSource) {}

  async listLive(accountId: string, query: PageQuery): Promise<{ rows: SessionRow[]; total: number }> {
    const rows: SessionRow[] = await this.dataSource.query(
      `SELECT id, ${isoText('created_at')} AS created_at, ${isoText('last_used_at')} AS last_used_at, ip, user_agent
         FROM sessions WHERE ${LIVE} ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3`,
      [accountId, query.pageSize, pageOffset(query)],
    );
    const [{ count }]: { count: string }[] = await this.dataSource.query(`SELECT count(*) AS count FROM sessions WHERE ${LIVE}`, [
      accountId,
    ]);
    return { rows, total: Number(count) };
  }

  /** Ends one of the account's live sessions; false if there is none with this id. */
  async revokeForAccount(manager: EntityManager, id: string, accountId: string): Promise<boolean> {
    const [, affected]: [unknown, number] = await manager.query(`UPDATE sessions SET revoked_at = now() WHERE id = $2 AND ${LIVE}`, [
      accountId,
      id,
    ]);
    return affected > 0;
  }

  /** Ends a live session by id (the caller's own); its account id, or null if it was not live. */
  async revoke(manager: EntityManager, id: string): Promise<string | null> {
    const [rows]: [{ account_id: string }[], number] = await manager.query(
      'UPDATE sessions SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL RETURNING account_id',
      [id],
    );
    return rows[0]?.account_id ?? null;
  }

  async revokeAllExcept(manager: EntityManager, accountId: string, keepSessionId: string | null): Promise<void> {
    await manager.query(`UPDATE sessions SET revoked_at = now() WHERE account_id = $1 AND revoked_at IS NULL AND id IS DISTINCT FROM $2`, [
      accountId,
      keepSessionId,
    ]);
  }

  async touch(ids: string[]): Promise<void> {
    await this.dataSource.query(
      `UPDATE sessions SET last_used_at = now()
        WHERE id = ANY($1::uuid[]) AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')`,
      [ids],
    );
  }
}
