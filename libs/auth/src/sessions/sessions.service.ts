import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, IsNull, Not, Repository } from 'typeorm';
import { AppConfig, poolQuery, Problem, TransactionRunner } from '@app/core';
import { AccessTokens } from '../tokens/access-tokens';
import { hashRefreshToken, newRefreshToken } from '../tokens/refresh-tokens';
import { RefreshToken } from './refresh-token.entity';
import { Session } from './session.entity';

export interface IssuedTokens {
  accountId: string;
  sessionId: string;
  accessToken: string;
  refreshToken: string;
  expiresIn: number;
}

@Injectable()
export class SessionsService {
  constructor(
    @InjectRepository(Session) private readonly sessions: Repository<Session>,
    private readonly tx: TransactionRunner,
    private readonly accessTokens: AccessTokens,
    private readonly config: AppConfig,
  ) {}

  async start(accountId: string, manager?: EntityManager): Promise<IssuedTokens> {
    const work = async (m: EntityManager) => {
      const expiresAt = new Date(Date.now() + this.config.refreshTokenTtlSeconds * 1000);
      const session = await m.save(m.create(Session, { accountId, expiresAt, revokedAt: null }));
      return this.issue(m, session);
    };
    return manager ? work(manager) : this.tx.run(work);
  }

  /** Rotates a refresh token; a spent token presented again ends its whole session. */
  async refresh(token: string): Promise<IssuedTokens> {
    const outcome = await this.tx.run(async (m) => {
      const stored = await m
        .createQueryBuilder(RefreshToken, 't')
        .setLock('pessimistic_write')
        .where('t.token_hash = :hash', { hash: hashRefreshToken(token) })
        .getOne();
      if (!stored) return null;
      const session = await m.findOne(Session, { where: { id: stored.sessionId }, lock: { mode: 'pessimistic_write' } });
      if (!session || session.revokedAt || session.expiresAt <= new Date()) return null;
      if (stored.usedAt) {
        await m.update(Session, { id: session.id }, { revokedAt: new Date() });
        return 'reused' as const;
      }
      await m.update(RefreshToken, { id: stored.id }, { usedAt: new Date() });
      return this.issue(m, session);
    });
    if (!outcome || outcome === 'reused') throw Problem.unauthorized('The refresh token is invalid, expired or already used.');
    return outcome;
  }

  async end(sessionId: string): Promise<void> {
    await this.sessions.update({ id: sessionId, revokedAt: IsNull() }, { revokedAt: new Date() });
  }

  async endAllExcept(accountId: string, keepSessionId: string | null, manager: EntityManager): Promise<void> {
    await manager.update(
      Session,
      { accountId, revokedAt: IsNull(), ...(keepSessionId ? { id: Not(keepSessionId) } : {}) },
      { revokedAt: new Date() },
    );
  }

  /** One primary-key lookup: is this session still live for this account? */
  async isLive(sessionId: string, accountId: string): Promise<boolean> {
    const rows = await poolQuery(
      this.sessions.manager.connection,
      'SELECT 1 FROM sessions WHERE id = $1 AND account_id = $2 AND revoked_at IS NULL AND expires_at > now()',
      [sessionId, accountId],
    );
    return rows.length > 0;
  }

  private async issue(m: EntityManager, session: Session): Promise<IssuedTokens> {
    const refresh = newRefreshToken();
    await m.insert(RefreshToken, { sessionId: session.id, tokenHash: refresh.hash, usedAt: null });
    return {
      accountId: session.accountId,
      sessionId: session.id,
      accessToken: this.accessTokens.issue({ accountId: session.accountId, sessionId: session.id }),
      refreshToken: refresh.token,
      expiresIn: this.config.accessTokenTtlSeconds,
    };
  }
}
