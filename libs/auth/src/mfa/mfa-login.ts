import { Injectable } from '@nestjs/common';
import { AccountsService, AccountView } from '@app/accounts';
import { ClientInfo, Problem, RequestFacts, TransactionRunner } from '@app/core';
import { LoginActivity } from '../login/login-activity';
import { SessionsService } from '../sessions/sessions.service';
import type { IssuedTokens } from '../tokens/issued-tokens';
import { hashSecretToken, newSecretToken } from '../tokens/secret-tokens';
import { MfaLoginRequest } from './dto/mfa.request';
import { MfaRequiredResponse } from './dto/mfa.response';
import { MfaRepository } from './mfa.repository';
import { SecondFactorCodes } from './second-factor-codes';

export const MFA_TOKEN_TTL_SECONDS = 300;
const MAX_FAILED_ATTEMPTS = 5;

const invalidMfaToken = () => new Problem(401, 'invalid_mfa_token', 'The mfaToken is invalid, expired or already used; log in again.');

/** The second factor's part of signing in: a challenge after the password, then a code against it. */
@Injectable()
export class MfaLogin {
  constructor(
    private readonly repository: MfaRepository,
    private readonly codes: SecondFactorCodes,
    private readonly accounts: AccountsService,
    private readonly sessions: SessionsService,
    private readonly logins: LoginActivity,
    private readonly tx: TransactionRunner,
  ) {}

  isRequired(accountId: string): Promise<boolean> {
    return this.repository.isEnabled(accountId);
  }

  /** The first login step for an account with 2FA: a short-lived token that gives no access. */
  async challenge(accountId: string, client?: ClientInfo): Promise<MfaRequiredResponse> {
    const token = newSecretToken('hmf_');
    await this.repository.createChallenge(accountId, token.hash, MFA_TOKEN_TTL_SECONDS, client);
    return MfaRequiredResponse.fromToken(token.token, MFA_TOKEN_TTL_SECONDS);
  }

  /** The second login step: a code or a recovery code against a live mfaToken; 5 wrong ones end it. */
  async complete(input: MfaLoginRequest, client?: RequestFacts): Promise<{ tokens: IssuedTokens; account: AccountView | null }> {
    if (!input.code === !input.recoveryCode) {
      throw Problem.invalidInput('Give either code or recoveryCode.', [{ field: 'code', message: 'give either code or recoveryCode' }]);
    }
    const hash = hashSecretToken(input.mfaToken);
    const peek = await this.repository.findChallenge(hash);
    if (!peek?.live) throw invalidMfaToken();
    await this.codes.countAttempt(peek.account_id);
    const outcome = await this.tx.run(async (m) => {
      const challenge = await this.repository.findChallenge(hash, m);
      if (!challenge?.live) return 'ended' as const;
      const mfa = await this.repository.find(m, challenge.account_id, true);
      const accepted =
        mfa?.enabled_at && (await this.codes.acceptCodeOrRecovery(m, challenge.account_id, mfa, input.code ?? input.recoveryCode!));
      if (!accepted) {
        await this.repository.failChallenge(m, challenge.id, MAX_FAILED_ATTEMPTS);
        return 'bad_code' as const;
      }
      await this.repository.endChallenge(m, challenge.id);
      const tokens = await this.sessions.start(m, challenge.account_id, { ip: challenge.ip, userAgent: challenge.user_agent });
      const account = await this.accounts.findById(challenge.account_id, m);
      if (account) await this.logins.succeeded(m, account, tokens.sessionId, true, client);
      return { tokens, account };
    });
    if (outcome === 'ended') throw invalidMfaToken();
    if (outcome === 'bad_code') {
      await this.logins.failed({ accountId: peek.account_id }, { action: 'auth.login_failed', reason: 'wrong_two_factor_code' }, client);
      throw new Problem(401, 'invalid_code', 'The code is incorrect or was already used.');
    }
    return outcome;
  }
}
