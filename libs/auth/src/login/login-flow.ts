import { Injectable } from '@nestjs/common';
import { AccountsService } from '@app/accounts';
import { Problem, RequestFacts, TransactionRunner } from '@app/core';
import { AuthTokensResponse } from '../dto/auth.response';
import { LoginRequest } from '../dto/auth.request';
import { LoginActivity } from './login-activity';
import { MfaLoginRequest } from '../mfa/dto/mfa.request';
import { MfaRequiredResponse } from '../mfa/dto/mfa.response';
import { MfaLogin } from '../mfa/mfa-login';
import { SessionsService } from '../sessions/sessions.service';

const INVALID_CREDENTIALS = () => new Problem(401, 'invalid_credentials', 'The email or password is incorrect.');

/** Signing in, both steps: the password, then (with two-factor sign-in on) the second factor. */
@Injectable()
export class LoginFlow {
  constructor(
    private readonly accounts: AccountsService,
    private readonly mfa: MfaLogin,
    private readonly sessions: SessionsService,
    private readonly logins: LoginActivity,
    private readonly tx: TransactionRunner,
  ) {}

  async withPassword(input: LoginRequest, client?: RequestFacts): Promise<AuthTokensResponse | MfaRequiredResponse> {
    const account = await this.accounts.verifyPassword(input.email, input.password);
    if (!account) {
      // Not awaited: a known email's answer must take no longer than an unknown one's (no enumeration by timing).
      void this.logins.failed({ email: input.email }, { action: 'auth.login_failed', reason: 'wrong_password' }, client);
      throw INVALID_CREDENTIALS();
    }
    if (await this.mfa.isRequired(account.id)) return this.mfa.challenge(account.id, client);
    const tokens = await this.tx.run(async (m) => {
      const issued = await this.sessions.start(m, account.id, client);
      await this.logins.succeeded(m, account, issued.sessionId, false, client);
      return issued;
    });
    return AuthTokensResponse.fromTokens(account, tokens);
  }

  /** The mfaToken of the first step with a code; the account is the one the session was started for. */
  async withSecondFactor(input: MfaLoginRequest, client?: RequestFacts): Promise<AuthTokensResponse> {
    const { tokens, account } = await this.mfa.complete(input, client);
    if (!account) throw Problem.unauthorized();
    return AuthTokensResponse.fromTokens(account, tokens);
  }
}
