import { Injectable } from '@nestjs/common';
import { Actor, Principal, Problem, TransactionRunner } from '@app/core';
import { AccountsService } from '@app/accounts';
import { PasswordCheck } from '../password/password-check';
import { callerAccount, currentSessionOf } from '../sessions/current-session';
import { hashRecoveryCode, newRecoveryCode } from '../tokens/secret-tokens';
import { DisableMfaRequest, EnableMfaRequest } from './dto/mfa.request';
import { MfaSetupResponse, RecoveryCodesResponse } from './dto/mfa.response';
import { MfaChanges } from './mfa-changes';
import { MfaRepository } from './mfa.repository';
import { invalidCode, SecondFactorCodes } from './second-factor-codes';
import { totp } from './totp';

const RECOVERY_CODE_COUNT = 10;

/** TOTP (RFC 6238) second factor of one's own account: setup, enable with recovery codes, disable; and the operator's disable. */
@Injectable()
export class MfaService {
  constructor(
    private readonly repository: MfaRepository,
    private readonly codes: SecondFactorCodes,
    private readonly changes: MfaChanges,
    private readonly accounts: AccountsService,
    private readonly passwordCheck: PasswordCheck,
    private readonly tx: TransactionRunner,
  ) {}

  async setup(principal: Principal): Promise<MfaSetupResponse> {
    currentSessionOf(principal);
    const account = await callerAccount(this.accounts, principal.loginId);
    // Pre-hijacking: a second factor on someone else's address would outlast the owner's password reset.
    if (!account.emailVerifiedAt) throw Problem.emailUnverified('turning on two-factor sign-in');
    if (await this.repository.isEnabled(account.id))
      throw Problem.conflict('mfa_enabled', 'Two-factor sign-in is already on; disable it first.');
    const enrolment = MfaSetupResponse.fromEnrolment(await totp.enrol(account.email));
    await this.tx.run((m) => this.changes.setUp(m, account.id, this.codes.seal(enrolment.secret), principal));
    return enrolment;
  }

  /**
   * Turns 2FA on with the password and a first code; ends every other session. The password, as
   * for disable: a password reset does not turn 2FA off, so an access token
   * alone must not be able to turn it on with someone else's authenticator.
   */
  async enable(principal: Principal, input: EnableMfaRequest): Promise<RecoveryCodesResponse> {
    const current = currentSessionOf(principal);
    await this.codes.countAttempt(principal.loginId);
    const account = await callerAccount(this.accounts, principal.loginId);
    await this.passwordCheck.confirm(principal, account, input.password, 'two_factor_enable', 'password');
    const recoveryCodes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
    const outcome = await this.tx.run(async (m, publish) => {
      const mfa = await this.repository.find(m, principal.loginId, true);
      if (!mfa) return 'not_set_up' as const;
      if (mfa.enabled_at) return 'enabled' as const;
      if (!(await this.codes.acceptTotp(m, principal.loginId, mfa, input.code))) return 'bad_code' as const;
      await this.changes.turnOn(m, publish, account, recoveryCodes.map(hashRecoveryCode), current, principal);
      return 'ok' as const;
    });
    if (outcome === 'not_set_up') throw Problem.conflict('mfa_not_set_up', 'Call POST /api/auth/2fa/setup first.');
    if (outcome === 'enabled') throw Problem.conflict('mfa_enabled', 'Two-factor sign-in is already on.');
    if (outcome === 'bad_code') throw invalidCode();
    return RecoveryCodesResponse.fromCodes(recoveryCodes);
  }

  async disable(principal: Principal, input: DisableMfaRequest): Promise<void> {
    const current = currentSessionOf(principal);
    await this.codes.countAttempt(principal.loginId);
    const account = await callerAccount(this.accounts, principal.loginId);
    await this.passwordCheck.confirm(principal, account, input.password, 'two_factor_disable', 'password');
    const outcome = await this.tx.run(async (m, publish) => {
      const mfa = await this.repository.find(m, account.id, true);
      if (!mfa?.enabled_at) return 'not_enabled' as const;
      if (!(await this.codes.acceptCodeOrRecovery(m, account.id, mfa, input.code))) return 'bad_code' as const;
      await this.changes.turnOff(m, publish, account, current, { caller: principal });
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
    const account = await callerAccount(this.accounts, accountId);
    return this.tx.run(async (m, publish) => {
      const mfa = await this.repository.find(m, account.id, true);
      if (!mfa?.enabled_at) return false;
      await this.changes.turnOff(m, publish, account, null, { actor, details: { byOperator: true } });
      return true;
    });
  }
}
