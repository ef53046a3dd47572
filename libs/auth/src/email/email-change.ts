import { Injectable } from '@nestjs/common';
import { AccountsService, AccountView } from '@app/accounts';
import { ActivityLog, Principal, Problem, TransactionRunner } from '@app/core';
import { AccountRateLimits } from '../account-rate-limits';
import { AccountResponse } from '../dto/auth.response';
import { PasswordCheck } from '../password/password-check';
import { newSecretToken } from '../tokens/secret-tokens';
import { AccountMail } from './account-mail';
import { AccountTokensRepository } from './account-tokens.repository';
import { UpdateMeRequest } from './dto/account-email.request';
import { VERIFY_TTL_SECONDS } from './email-verification.service';
import { callerAccount } from '../sessions/current-session';

/** PATCH /me: the name at once; a new email address once the link mailed to it is followed (EmailVerificationService.verify). */
@Injectable()
export class EmailChange {
  constructor(
    private readonly accounts: AccountsService,
    private readonly tokens: AccountTokensRepository,
    private readonly mail: AccountMail,
    private readonly rateLimits: AccountRateLimits,
    private readonly passwordCheck: PasswordCheck,
    private readonly activity: ActivityLog,
    private readonly tx: TransactionRunner,
  ) {}

  /**
   * A new name applies at once; a new email only after it is confirmed, and the old address is
   * told. An address another account has gets the same answer, which reveals no account: its owner
   * is told by mail, with no link, and nothing changes.
   */
  async update(principal: Principal, input: UpdateMeRequest): Promise<AccountResponse> {
    const account = await callerAccount(this.accounts, principal.loginId);
    const newEmail = input.email && input.email !== account.email ? input.email : undefined;
    if (newEmail) await this.checkEmailChange(principal, account, input.currentPassword);
    const holder = newEmail ? await this.accounts.findByEmail(newEmail) : null;
    const token = newSecretToken('hev_');
    await this.tx.run(async (m) => {
      if (input.name !== undefined) await this.accounts.rename(m, account.id, input.name);
      if (input.name !== undefined || newEmail) {
        await this.activity.record(m, {
          accountId: account.id,
          action: 'account.update',
          entity: { type: 'account', id: account.id },
          caller: principal,
          details: { nameChanged: input.name !== undefined, emailChangeRequested: Boolean(newEmail) },
        });
      }
      if (!newEmail) return;
      // Either way the request replaces an earlier pending change, so that the two answers cannot be told apart.
      await this.tokens.retire(m, account.id, 'change_email');
      const name = input.name ?? account.name;
      if (holder) {
        await this.mail.emailInUseNotice(m, holder.email, holder.name);
      } else {
        await this.tokens.create(m, account.id, 'change_email', newEmail, token.hash, VERIFY_TTL_SECONDS);
        await this.mail.confirmNewEmail(m, newEmail, name, token.token);
      }
      await this.mail.emailChangeRequested(m, account.email, name, newEmail);
    });
    return AccountResponse.from((await this.accounts.findById(account.id))!);
  }

  private async checkEmailChange(principal: Principal, account: AccountView, currentPassword: string | undefined): Promise<void> {
    if (!currentPassword) {
      throw Problem.invalidInput('currentPassword is required to change the email.', [
        { field: 'currentPassword', message: 'is required to change the email' },
      ]);
    }
    await this.passwordCheck.confirm(principal, account, currentPassword, 'email_change', 'currentPassword');
    await this.rateLimits.mail(account.id);
  }
}
