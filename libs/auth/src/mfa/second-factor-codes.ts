import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { Problem, SecretBox } from '@app/core';
import { AccountRateLimits } from '../account-rate-limits';
import { hashRecoveryCode } from '../tokens/secret-tokens';
import { MfaRepository, MfaRow } from './mfa.repository';
import { totp } from './totp';

export const invalidCode = (field = 'code') =>
  new Problem(400, 'invalid_code', 'The code is incorrect or was already used.', [{ field, message: 'is incorrect or already used' }]);

/** The codes of the second factor: the sealed TOTP secret, a code or recovery code accepted once, the per-account budget of tries. */
@Injectable()
export class SecondFactorCodes {
  constructor(
    private readonly repository: MfaRepository,
    private readonly secrets: SecretBox,
    private readonly rateLimits: AccountRateLimits,
  ) {}

  seal(secret: string): string {
    return this.secrets.seal(secret);
  }

  countAttempt(accountId: string): Promise<void> {
    return this.rateLimits.secondFactor(accountId);
  }

  /** A six-digit TOTP code, or else a recovery code (spent). */
  acceptCodeOrRecovery(m: EntityManager, accountId: string, mfa: Pick<MfaRow, 'secret_sealed' | 'last_time_step'>, code: string) {
    if (/^\d{6}$/.test(code)) return this.acceptTotp(m, accountId, mfa, code);
    return this.repository.spendRecoveryCode(m, accountId, hashRecoveryCode(code));
  }

  /** A code is good once: its time step is recorded and steps up to it are refused afterwards. */
  async acceptTotp(
    m: EntityManager,
    accountId: string,
    mfa: Pick<MfaRow, 'secret_sealed' | 'last_time_step'>,
    code: string,
  ): Promise<boolean> {
    const lastStep = mfa.last_time_step;
    const step = await totp.check(this.secrets.open(mfa.secret_sealed), code, lastStep === null ? null : Number(lastStep));
    if (step === null) return false;
    await this.repository.recordTimeStep(m, accountId, step);
    return true;
  }
}
