import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import {
  ActivityInput,
  ActivityLog,
  Actor,
  AppConfig,
  ClientInfo,
  Principal,
  RequestFacts,
  Problem,
  Publish,
  RateLimitStore,
  SecretBox,
  TransactionRunner,
} from '@app/core';
import { AccountsService, AccountView } from '@app/accounts';
import { spendAccountBudget } from '../account-rate-limit';
import { AccountMail } from '../email/account-mail';
import { LoginActivity } from '../login-activity';
import { PasswordCheck } from '../password/password-check';
import { currentSessionOf } from '../sessions/current-session';
import { SessionsService } from '../sessions/sessions.service';
import type { IssuedTokens } from '../tokens/issued-tokens';
import { DisableMfaRequest, EnableMfaRequest, MfaLoginRequest } from './dto/mfa.request';
import { MfaRequiredResponse, MfaSetupResponse, RecoveryCodesResponse } from './dto/mfa.response';
import { MfaRepository } from './mfa.repository';
import { hashRecoveryCode, hashSecretToken, newRecoveryCode, newSecretToken } from '../tokens/secret-tokens';
import { totp } from './totp';

export const MFA_TOKEN_TTL_SECONDS = 300;
const MAX_FAILED_ATTEMPTS = 5;
const RECOVERY_CODE_COUNT = 10;

const invalidCode = (field = 'code') =>
  new Problem(400, 'invalid_code', 'The code is incorrect or was already used.', [{ field, message: 'is incorrect or already used' }]);
const invalidMfaToken = () => new Problem(401, 'invalid_mfa_token', 'The mfaToken is invalid, expired or already used; log in again.');

export type MfaEvent = 'mfa_enabled' | 'mfa_disabled';

/** TOTP (RFC 6238) second factor: setup, enable with recovery codes, disable, the login step. */
@Injectable()
export class MfaService {
  constructor(
    private readonly repository: MfaRepository,
    private readonly accounts: AccountsService,
    private readonly sessions: SessionsService,
    private readonly secrets: SecretBox,
    private readonly tx: TransactionRunner,
    private readonly rateLimits: RateLimitStore,
    private readonly config: AppConfig,
    private readonly mail: AccountMail,
    private readonly activity: ActivityLog,
    private readonly logins: LoginActivity,
    private readonly passwordCheck: PasswordCheck,
  ) {}

  isEnabled(accountId: string): Promise<boolean> {
    return this.repository.isEnabled(accountId);
  }

  async setup(principal: Principal): Promise<MfaSetupResponse> {
    currentSessionOf(principal);
    const account = await this.existingAccount(principal.accountId);
    // Pre-hijacking: a second factor on someone else's address would outlast the owner's password reset.
    if (!account.emailVerifiedAt) throw Problem.emailUnverified('turning on two-factor sign-in');
    if (await this.isEnabled(account.id)) throw Problem.conflict('mfa_enabled', 'Two-factor sign-in is already on; disable it first.');
    const enrolment = MfaSetupResponse.fromEnrolment(await totp.enrol(account.email));
    await this.tx.run(async (m) => {
      await this.repository.savePending(m, account.id, this.secrets.seal(enrolment.secret));
      await this.activity.record(m, {
        accountId: account.id,
        action: 'two_factor.setup',
        entity: { type: 'account', id: account.id },
        caller: principal,
      });
    });
    return enrolment;
  }

  /**
   * Turns 2FA on with the password and a first code; ends every other session. The password, as
   * for disable (issue 26, finding 4): a password reset does not turn 2FA off, so an access token
   * alone must not be able to turn it on with someone else's authenticator.
   */
  async enable(principal: Principal, input: EnableMfaRequest): Promise<RecoveryCodesResponse> {
    const current = currentSessionOf(principal);
    await this.countAttempt(principal.accountId);
    const account = await this.existingAccount(principal.accountId);
    await this.passwordCheck.confirm(principal, account, input.password, 'two_factor_enable', 'password');
    const code = input.code;
    const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
    const outcome = await this.tx.run(async (m, publish) => {
      const mfa = await this.repository.find(m, principal.accountId, true);
      if (!mfa) return 'not_set_up' as const;
      if (mfa.enabled_at) return 'enabled' as const;
      if (!(await this.acceptTotp(m, principal.accountId, mfa.secret_sealed, mfa.last_time_step, code))) return 'bad_code' as const;
      await this.repository.enable(m, principal.accountId, codes.map(hashRecoveryCode));
      await this.sessions.endAllExcept(m, publish, principal.accountId, current);
      await this.mail.notice(m, account.email, account.name, 'mfa_enabled');
      await this.activity.record(m, {
        accountId: account.id,
        action: 'two_factor.enable',
        entity: { type: 'account', id: account.id },
        caller: principal,
      });
      return 'ok' as const;
    });
    if (outcome === 'not_set_up') throw Problem.conflict('mfa_not_set_up', 'Call POST /api/auth/2fa/setup first.');
    if (outcome === 'enabled') throw Problem.conflict('mfa_enabled', 'Two-factor sign-in is already on.');
    if (outcome === 'bad_code') throw invalidCode();
    return RecoveryCodesResponse.fromCodes(codes);
  }

  async disable(principal: Principal, input: DisableMfaRequest): Promise<void> {
    const current = currentSessionOf(principal);
    await this.countAttempt(principal.accountId);
    const account = await this.existingAccount(principal.accountId);
    await this.passwordCheck.confirm(principal, account, input.password, 'two_factor_disable', 'password');
    const outcome = await this.tx.run(async (m, publish) => {
      const mfa = await this.repository.find(m, account.id, true);
      if (!mfa?.enabled_at) return 'not_enabled' as const;
      if (!(await this.acceptCodeOrRecovery(m, account.id, mfa, input.code))) return 'bad_code' as const;
      await this.turnOff(m, publish, account, current, { caller: principal });
      return 'ok' as const;
    });
    if (outcome === 'not_enabled') throw Problem.conflict('mfa_not_enabled', 'Two-factor sign-in is not on.');
    if (outcome === 'bad_code') throw invalidCode();
  }

  /**
   * The operator's way back for an owner locked out by a second factor they do not hold (set up
   * with a stolen access token, or a lost phone without recovery codes): turns 2FA off and ends
   * every session, recorded as staff; the owner then resets the password through the mail.
   * False if 2FA was not on.
   */
  async disableByOperator(accountId: string, actor: Actor): Promise<boolean> {
    const account = await this.existingAccount(accountId);
    return this.tx.run(async (m, publish) => {
      const mfa = await this.repository.find(m, account.id, true);
      if (!mfa?.enabled_at) return false;
      await this.turnOff(m, publish, account, null, { actor, details: { byOperator: true } });
      return true;
    });
  }

  /** 2FA off: every session but `keep` ends, the owner is told by mail, and the change is recorded as done by `by`. */
  private async turnOff(
    m: EntityManager,
    publish: Publish,
    account: AccountView,
    keep: string | null,
    by: Pick<ActivityInput, 'caller' | 'actor' | 'details'>,
  ): Promise<void> {
    await this.repository.disable(m, account.id);
    await this.sessions.endAllExcept(m, publish, account.id, keep);
    await this.mail.notice(m, account.email, account.name, 'mfa_disabled');
    await this.activity.record(m, {
      accountId: account.id,
      action: 'two_factor.disable',
      entity: { type: 'account', id: account.id },
      ...by,
    });
  }

  /** The first login step for an account with 2FA: a short-lived token that gives no access. */
  async challenge(accountId: string, client?: ClientInfo): Promise<MfaRequiredResponse> {
    const token = newSecretToken('hmf_');
    await this.repository.createChallenge(accountId, token.hash, MFA_TOKEN_TTL_SECONDS, client);
    return MfaRequiredResponse.fromToken(token.token, MFA_TOKEN_TTL_SECONDS);
  }

  /** The second login step: a code or a recovery code against a live mfaToken; 5 wrong ones end it. */
  async completeLogin(input: MfaLoginRequest, client?: RequestFacts): Promise<{ tokens: IssuedTokens; account: AccountView | null }> {
    if (!input.code === !input.recoveryCode) {
      throw Problem.invalidInput('Give either code or recoveryCode.', [{ field: 'code', message: 'give either code or recoveryCode' }]);
    }
    const hash = hashSecretToken(input.mfaToken);
    const peek = await this.repository.findChallenge(hash);
    if (!peek?.live) throw invalidMfaToken();
    await this.countAttempt(peek.account_id);
    const outcome = await this.tx.run(async (m) => {
      const challenge = await this.repository.findChallenge(hash, m);
      if (!challenge?.live) return 'ended' as const;
      const mfa = await this.repository.find(m, challenge.account_id, true);
      const accepted =
        mfa?.enabled_at && (await this.acceptCodeOrRecovery(m, challenge.account_id, mfa, input.code ?? input.recoveryCode!));
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

  private async acceptCodeOrRecovery(
    m: EntityManager,
    accountId: string,
    mfa: { secret_sealed: string; last_time_step: string | null },
    code: string,
  ) {
    if (/^\d{6}$/.test(code)) return this.acceptTotp(m, accountId, mfa.secret_sealed, mfa.last_time_step, code);
    return this.repository.spendRecoveryCode(m, accountId, hashRecoveryCode(code));
  }

  /** A code is good once: its time step is recorded and steps up to it are refused afterwards. */
  private async acceptTotp(m: EntityManager, accountId: string, sealed: string, lastStep: string | null, code: string): Promise<boolean> {
    const step = await totp.check(this.secrets.open(sealed), code, lastStep === null ? null : Number(lastStep));
    if (step === null) return false;
    await this.repository.recordTimeStep(m, accountId, step);
    return true;
  }

  private countAttempt(accountId: string): Promise<void> {
    return spendAccountBudget(this.rateLimits, `2fa:account:${accountId}`, this.config.rateLimit.mfaPerMinute, 60);
  }

  private async existingAccount(accountId: string) {
    const account = await this.accounts.findById(accountId);
    if (!account) throw Problem.unauthorized();
    return account;
  }
}
