import { Injectable } from '@nestjs/common';
import { accountActor, ActivityLog, Principal, Problem, RequestFacts, TransactionRunner } from '@app/core';
import { AccountsService } from '@app/accounts';
import { AuthTokensResponse, MeResponse } from './dto/auth.response';
import { ChangePasswordRequest, RegisterRequest } from './dto/auth.request';
import { AccountTokensRepository } from './email/account-tokens.repository';
import { EmailVerificationService } from './email/email-verification.service';
import { PasswordCheck } from './password/password-check';
import { callerAccount, currentSessionOf } from './sessions/current-session';
import { SessionsService } from './sessions/sessions.service';

@Injectable()
export class AuthService {
  constructor(
    private readonly accounts: AccountsService,
    private readonly sessions: SessionsService,
    private readonly tx: TransactionRunner,
    private readonly verification: EmailVerificationService,
    private readonly activity: ActivityLog,
    private readonly passwordCheck: PasswordCheck,
    private readonly tokens: AccountTokensRepository,
  ) {}

  async register(input: RegisterRequest, client?: RequestFacts): Promise<AuthTokensResponse> {
    return this.tx.run(async (m) => {
      const account = await this.accounts.create(m, input);
      await this.verification.sendVerification(m, account);
      const tokens = await this.sessions.start(m, account.id, client);
      await this.activity.record(m, {
        accountId: account.id,
        action: 'account.register',
        entity: { type: 'account', id: account.id },
        actor: accountActor(account),
        request: client,
      });
      return AuthTokensResponse.fromTokens(account, tokens);
    });
  }

  /**
   * Not in the activity log: a refresh changes no state the customer acts on
   * (docs/decisions/notifications-and-activity.md, "Not recorded").
   */
  async refresh(refreshToken: string): Promise<AuthTokensResponse> {
    const tokens = await this.sessions.refresh(refreshToken);
    const account = await this.accounts.findById(tokens.loginId);
    if (!account) throw Problem.unauthorized();
    return AuthTokensResponse.fromTokens(account, tokens);
  }

  async logout(principal: Principal): Promise<void> {
    const sessionId = currentSessionOf(principal);
    await this.tx.run(async (m, publish) => {
      if (!(await this.sessions.end(m, publish, sessionId))) return;
      await this.activity.record(m, {
        accountId: principal.loginId,
        action: 'auth.logout',
        entity: { type: 'session', id: sessionId },
        caller: principal,
      });
    });
  }

  async changePassword(principal: Principal, input: ChangePasswordRequest): Promise<void> {
    const sessionId = currentSessionOf(principal);
    const account = await callerAccount(this.accounts, principal.loginId);
    await this.passwordCheck.confirm(principal, account, input.currentPassword, 'password_change', 'currentPassword');
    await this.tx.run(async (m, publish) => {
      await this.accounts.setPassword(m, account.id, input.newPassword);
      // Links mailed before (reset, pending email change, verification) belong to the old credential.
      await this.tokens.retireAll(m, account.id);
      await this.sessions.endAllExcept(m, publish, account.id, sessionId);
      await this.activity.record(m, {
        accountId: account.id,
        action: 'auth.password_change',
        entity: { type: 'account', id: account.id },
        caller: principal,
      });
    });
  }

  async me(principal: Principal): Promise<MeResponse> {
    const account = await callerAccount(this.accounts, principal.loginId);
    return MeResponse.of(account, principal, await this.accounts.accountsOf(principal.loginId));
  }

  /** Not in the activity log: like a refresh, it changes nothing the customer acts on. */
  async switchAccount(principal: Principal, accountId: string): Promise<AuthTokensResponse> {
    const tokens = await this.sessions.switchAccount(principal, accountId);
    return AuthTokensResponse.fromTokens(await callerAccount(this.accounts, principal.loginId), tokens);
  }
}
