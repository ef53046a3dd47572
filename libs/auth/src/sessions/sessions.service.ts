import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import {
  ActivityLog,
  AppConfig,
  ClientInfo,
  credentialsRevoked,
  Paginated,
  paginated,
  PageQuery,
  Principal,
  Problem,
  Publish,
  Role,
  TransactionRunner,
} from '@app/core';
import { AccountsService } from '@app/accounts';
import { AccessTokens } from '../tokens/access-tokens';
import type { IssuedTokens } from '../tokens/issued-tokens';
import { hashRefreshToken, newRefreshToken } from '../tokens/refresh-tokens';
import { currentSessionOf } from './current-session';
import { SessionResponse } from './dto/session.response';
import { Session } from './session.entity';
import { SessionActivity } from './session-activity';
import { SessionGrantRow, SessionsRepository } from './sessions.repository';

@Injectable()
export class SessionsService {
  constructor(
    private readonly tx: TransactionRunner,
    private readonly accessTokens: AccessTokens,
    private readonly config: AppConfig,
    private readonly repository: SessionsRepository,
    private readonly activity: SessionActivity,
    private readonly activityLog: ActivityLog,
    private readonly accounts: AccountsService,
  ) {}

  /** Opens a session inside the caller's transaction (registration, login, the second factor), on the login's first account. */
  async start(manager: EntityManager, loginId: string, client?: ClientInfo): Promise<IssuedTokens> {
    const expiresAt = new Date(Date.now() + this.config.refreshTokenTtlSeconds * 1000);
    const current = await this.firstAccountOf(manager, loginId);
    const session = await this.repository.insert(manager, loginId, current, expiresAt, client);
    return this.issue(manager, session);
  }

  /**
   * New tokens of the caller's session acting on another of its login's accounts; the session's
   * unused refresh token is void. Another login's account (or one it left) is a 404.
   */
  async switchAccount(principal: Principal, accountId: string): Promise<IssuedTokens> {
    const sessionId = currentSessionOf(principal);
    const tokens = await this.tx.run(async (m) => {
      const session = await this.repository.lockLive(m, principal.loginId, sessionId);
      if (!session) return null;
      if (!(await this.accounts.membership(accountId, principal.loginId, m))) throw Problem.notFound('Account');
      await this.repository.setCurrentAccount(m, session.id, accountId);
      await this.repository.dropUnusedRefreshTokens(m, session.id);
      return this.issue(m, { ...session, currentAccountId: accountId });
    });
    if (!tokens) throw Problem.unauthorized();
    return tokens;
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
        publish(credentialsRevoked(session.accountId));
        return 'reused' as const;
      }
      await this.repository.markRefreshTokenUsed(m, stored.id);
      // The account the session acted on, while its login is still a member; else the login's first.
      const current = session.currentAccountId && (await this.accounts.membership(session.currentAccountId, session.accountId, m));
      if (!current) {
        session.currentAccountId = await this.firstAccountOf(m, session.accountId);
        await this.repository.setCurrentAccount(m, session.id, session.currentAccountId);
      }
      return this.issue(m, session);
    });
    if (!outcome || outcome === 'reused') throw Problem.unauthorized('The refresh token is invalid, expired or already used.');
    return outcome;
  }

  /** Ends a live session in the caller's transaction; false if it was not live. */
  async end(m: EntityManager, publish: Publish, sessionId: string): Promise<boolean> {
    const accountId = await this.repository.revoke(m, sessionId);
    if (accountId) publish(credentialsRevoked(accountId));
    return accountId !== null;
  }

  /** Ends the account's sessions but one; after COMMIT, open notification streams of the ended ones close. */
  async endAllExcept(manager: EntityManager, publish: Publish, accountId: string, keepSessionId: string | null): Promise<void> {
    await this.repository.revokeAllExcept(manager, accountId, keepSessionId);
    publish(credentialsRevoked(accountId));
  }

  async list(principal: Principal, query: PageQuery): Promise<Paginated<SessionResponse>> {
    const current = currentSessionOf(principal);
    const { rows, total } = await this.repository.listLive(principal.loginId, query);
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
      if (!(await this.repository.revokeForAccount(m, principal.loginId, sessionId))) return false;
      publish(credentialsRevoked(principal.loginId));
      await this.activityLog.record(m, {
        accountId: principal.loginId,
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
      await this.endAllExcept(m, publish, principal.loginId, current);
      await this.activityLog.record(m, { accountId: principal.loginId, action: 'session.revoke_all', entity: null, caller: principal });
    });
  }

  /** A live session's login's role on the account (null: the session ended, or the login is no member). */
  roleOn(sessionId: string, accountId: string): Promise<Role | null> {
    return this.repository.roleOn(sessionId, accountId);
  }

  /** A request's session check: when the session ends by itself and who the token speaks for, or null when it is not live. */
  async liveGrant(sessionId: string, loginId: string, accountId: string): Promise<SessionGrantRow | null> {
    const grant = await this.repository.liveGrant(loginId, sessionId, accountId);
    if (grant) this.used(sessionId);
    return grant;
  }

  /** The session served a request (lastUsedAt, kept to the minute off the request path). */
  used(sessionId: string): void {
    this.activity.used(sessionId);
  }

  /** The login's own account while it is a member there, else the first it joined; a login in none acts on its own (403 no_account). */
  private async firstAccountOf(m: EntityManager, loginId: string): Promise<string> {
    return (await this.accounts.accountsOf(loginId, m))[0]?.account_id ?? loginId;
  }

  private async issue(m: EntityManager, session: Session): Promise<IssuedTokens> {
    const refresh = newRefreshToken();
    await this.repository.insertRefreshToken(m, session.id, refresh.hash);
    const accountId = session.currentAccountId ?? session.accountId;
    return {
      loginId: session.accountId,
      accountId,
      sessionId: session.id,
      accessToken: this.accessTokens.issue({ loginId: session.accountId, accountId, sessionId: session.id }),
      refreshToken: refresh.token,
      expiresIn: this.config.accessTokenTtlSeconds,
    };
  }
}
