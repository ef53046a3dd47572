import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import {
  ActivityLog,
  AppConfig,
  ClientInfo,
  CredentialsRevokedEvent,
  domainEvent,
  Paginated,
  paginated,
  PageQuery,
  Principal,
  Problem,
  Publish,
  TransactionRunner,
} from '@app/core';
import { AccessTokens } from '../tokens/access-tokens';
import type { IssuedTokens } from '../tokens/issued-tokens';
import { hashRefreshToken, newRefreshToken } from '../tokens/refresh-tokens';
import { currentSessionOf } from './current-session';
import { SessionResponse } from './dto/session.response';
import { Session } from './session.entity';
import { SessionActivity } from './session-activity';
import { SessionsRepository } from './sessions.repository';

/** Streams held with the account's credentials check them again, so none outlives a revoked credential. */
export const revoked = (accountId: string) => domainEvent<CredentialsRevokedEvent>('credentials.revoked', accountId, {});

@Injectable()
export class SessionsService {
  constructor(
    private readonly tx: TransactionRunner,
    private readonly accessTokens: AccessTokens,
    private readonly config: AppConfig,
    private readonly repository: SessionsRepository,
    private readonly activity: SessionActivity,
    private readonly activityLog: ActivityLog,
  ) {}

  /** Opens a session inside the caller's transaction (registration, login, the second factor). */
  async start(manager: EntityManager, accountId: string, client?: ClientInfo): Promise<IssuedTokens> {
    const expiresAt = new Date(Date.now() + this.config.refreshTokenTtlSeconds * 1000);
    const session = await this.repository.insert(manager, accountId, expiresAt, client);
    return this.issue(manager, session);
  }

  /** Rotates a refresh token; a spent token presented again ends its whole session. */
  async refresh(token: string): Promise<IssuedTokens> {
    const outcome = await this.tx.run(async (m, publish) => {
      const locked = await this.repository.lockForRotation(m, hashRefreshToken(token));
      if (!locked) return null;
      const { token: stored, session } = locked;
      if (session.revokedAt || session.expiresAt <= new Date()) return null;
      if (stored.usedAt) {
        await this.repository.markRevoked(m, session.id);
        publish(revoked(session.accountId));
        return 'reused' as const;
      }
      await this.repository.markRefreshTokenUsed(m, stored.id);
      return this.issue(m, session);
    });
    if (!outcome || outcome === 'reused') throw Problem.unauthorized('The refresh token is invalid, expired or already used.');
    return outcome;
  }

  /** Ends a live session in the caller's transaction; false if it was not live. */
  async end(m: EntityManager, publish: Publish, sessionId: string): Promise<boolean> {
    const accountId = await this.repository.revoke(m, sessionId);
    if (accountId) publish(revoked(accountId));
    return accountId !== null;
  }

  /** Ends the account's sessions but one; after COMMIT, open notification streams of the ended ones close. */
  async endAllExcept(manager: EntityManager, publish: Publish, accountId: string, keepSessionId: string | null): Promise<void> {
    await this.repository.revokeAllExcept(manager, accountId, keepSessionId);
    publish(revoked(accountId));
  }

  async list(principal: Principal, query: PageQuery): Promise<Paginated<SessionResponse>> {
    const current = currentSessionOf(principal);
    const { rows, total } = await this.repository.listLive(principal.accountId, query);
    return paginated(
      rows.map((row) => SessionResponse.fromRow(row, current)),
      query,
      total,
    );
  }

  /** Ends one of the account's sessions; another account's (or an ended) session is a 404. */
  async revoke(principal: Principal, sessionId: string): Promise<void> {
    currentSessionOf(principal);
    const done = await this.tx.run(async (m, publish) => {
      if (!(await this.repository.revokeForAccount(m, principal.accountId, sessionId))) return false;
      publish(revoked(principal.accountId));
      await this.activityLog.record(m, {
        accountId: principal.accountId,
        action: 'session.revoke',
        entity: { type: 'session', id: sessionId },
        caller: principal,
      });
      return true;
    });
    if (!done) throw Problem.notFound('Session');
  }

  async revokeOthers(principal: Principal): Promise<void> {
    const current = currentSessionOf(principal);
    await this.tx.run(async (m, publish) => {
      await this.endAllExcept(m, publish, principal.accountId, current);
      await this.activityLog.record(m, { accountId: principal.accountId, action: 'session.revoke_all', entity: null, caller: principal });
    });
  }

  /** One primary-key lookup: is this session still live for this account? */
  async isLive(sessionId: string, accountId: string): Promise<boolean> {
    return (await this.liveUntil(sessionId, accountId)) !== null;
  }

  /** A request's session check: when the session ends by itself, or null when it is not live. */
  async liveUntil(sessionId: string, accountId: string): Promise<Date | null> {
    const until = await this.repository.liveUntil(accountId, sessionId);
    if (until) this.used(sessionId);
    return until;
  }

  /** The session served a request (lastUsedAt, kept to the minute off the request path). */
  used(sessionId: string): void {
    this.activity.used(sessionId);
  }

  private async issue(m: EntityManager, session: Session): Promise<IssuedTokens> {
    const refresh = newRefreshToken();
    await this.repository.insertRefreshToken(m, session.id, refresh.hash);
    return {
      accountId: session.accountId,
      sessionId: session.id,
      accessToken: this.accessTokens.issue({ accountId: session.accountId, sessionId: session.id }),
      refreshToken: refresh.token,
      expiresIn: this.config.accessTokenTtlSeconds,
    };
  }
}
