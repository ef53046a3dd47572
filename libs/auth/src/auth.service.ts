import { Injectable } from '@nestjs/common';
import { ClientInfo, Principal, Problem, TransactionRunner } from '@app/core';
import { Account, AccountsService } from '@app/accounts';
import { AccountResponse, AuthTokensResponse } from './dto/auth.response';
import { ChangePasswordRequest, LoginRequest, RegisterRequest } from './dto/auth.request';
import { EmailVerificationService } from './email/email-verification.service';
import { MfaLoginRequest } from './mfa/dto/mfa.request';
import { MfaRequiredResponse } from './mfa/dto/mfa.response';
import { MfaService } from './mfa/mfa.service';
import { IssuedTokens, SessionsService } from './sessions/sessions.service';

const INVALID_CREDENTIALS = () => new Problem(401, 'invalid_credentials', 'The email or password is incorrect.');

@Injectable()
export class AuthService {
  constructor(
    private readonly accounts: AccountsService,
    private readonly sessions: SessionsService,
    private readonly tx: TransactionRunner,
    private readonly mfa: MfaService,
    private readonly verification: EmailVerificationService,
  ) {}

  async register(input: RegisterRequest, client?: ClientInfo): Promise<AuthTokensResponse> {
    return this.tx.run(async (m) => {
      const account = await this.accounts.create(m, input);
      await this.verification.sendVerification(m, account);
      return this.respond(account, await this.sessions.start(m, account.id, client));
    });
  }

  async login(input: LoginRequest, client?: ClientInfo): Promise<AuthTokensResponse | MfaRequiredResponse> {
    const account = await this.accounts.verifyPassword(input.email, input.password);
    if (!account) throw INVALID_CREDENTIALS();
    if (await this.mfa.isEnabled(account.id)) return this.mfa.challenge(account.id, client);
    return this.respond(account, await this.tx.run((m) => this.sessions.start(m, account.id, client)));
  }

  async loginWithSecondFactor(input: MfaLoginRequest): Promise<AuthTokensResponse> {
    const tokens = await this.mfa.completeLogin(input);
    const account = await this.accounts.findById(tokens.accountId);
    if (!account) throw Problem.unauthorized();
    return this.respond(account, tokens);
  }

  async refresh(refreshToken: string): Promise<AuthTokensResponse> {
    const tokens = await this.sessions.refresh(refreshToken);
    const account = await this.accounts.findById(tokens.accountId);
    if (!account) throw Problem.unauthorized();
    return this.respond(account, tokens);
  }

  async logout(principal: Principal): Promise<void> {
    await this.sessions.end(this.sessionOf(principal));
  }

  async changePassword(principal: Principal, input: ChangePasswordRequest): Promise<void> {
    const sessionId = this.sessionOf(principal);
    const account = await this.me(principal);
    const verified = await this.accounts.verifyPassword(account.email, input.currentPassword);
    if (!verified) throw Problem.invalidInput('currentPassword is incorrect.', [{ field: 'currentPassword', message: 'is incorrect' }]);
    await this.tx.run(async (m, publish) => {
      await this.accounts.setPassword(m, account.id, input.newPassword);
      await this.sessions.endAllExcept(m, publish, account.id, sessionId);
    });
  }

  async me(principal: Principal): Promise<AccountResponse> {
    const account = await this.accounts.findById(principal.accountId);
    if (!account) throw Problem.unauthorized();
    return AccountResponse.from(account);
  }

  private sessionOf(principal: Principal): string {
    if (principal.kind !== 'access_token') {
      throw new Problem(403, 'forbidden', 'This operation needs an access token from a login, not an API key.');
    }
    return principal.credentialId;
  }

  private respond(account: Account, tokens: IssuedTokens): AuthTokensResponse {
    return {
      account: AccountResponse.from(account),
      accessToken: tokens.accessToken,
      refreshToken: tokens.refreshToken,
      expiresIn: tokens.expiresIn,
      tokenType: 'Bearer',
    };
  }
}
