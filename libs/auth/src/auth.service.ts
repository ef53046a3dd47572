import { Injectable } from '@nestjs/common';
import { Principal, Problem, TransactionRunner } from '@app/core';
import { AccountsService } from './accounts/accounts.service';
import { AccountResponse, AuthTokensResponse } from './dto/auth.response';
import { ChangePasswordRequest, LoginRequest, RegisterRequest } from './dto/auth.request';
import { IssuedTokens, SessionsService } from './sessions/sessions.service';
import { Account } from './accounts/account.entity';

const INVALID_CREDENTIALS = () => new Problem(401, 'invalid_credentials', 'The email or password is incorrect.');

@Injectable()
export class AuthService {
  constructor(
    private readonly accounts: AccountsService,
    private readonly sessions: SessionsService,
    private readonly tx: TransactionRunner,
  ) {}

  async register(input: RegisterRequest): Promise<AuthTokensResponse> {
    return this.tx.run(async (m) => {
      const account = await this.accounts.create(input, m);
      return this.respond(account, await this.sessions.start(account.id, m));
    });
  }

  async login(input: LoginRequest): Promise<AuthTokensResponse> {
    const account = await this.accounts.verifyPassword(input.email, input.password);
    if (!account) throw INVALID_CREDENTIALS();
    return this.respond(account, await this.sessions.start(account.id));
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
    await this.tx.run(async (m) => {
      await this.accounts.setPassword(account.id, input.newPassword, m);
      await this.sessions.endAllExcept(account.id, sessionId, m);
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
