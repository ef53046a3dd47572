import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { AccountsService, AccountView } from '@app/accounts';
import {
  accountActor,
  ActivityAction,
  ActivityLog,
  AppConfig,
  Principal,
  Problem,
  RateLimitStore,
  RequestFacts,
  TransactionRunner,
} from '@app/core';
import { spendAccountBudget } from '../account-rate-limit';
import { PasswordCheck } from '../password/password-check';
import { AccountResponse } from '../dto/auth.response';
import { hashSecretToken, newSecretToken } from '../tokens/secret-tokens';
import { AccountMail } from './account-mail';
import { AccountTokensRepository } from './account-tokens.repository';
import { UpdateMeRequest } from './dto/account-email.request';

const VERIFY_TTL_SECONDS = 24 * 3600;

/** A verification link: the address it confirms, and whether it moves the account to that address. */
export interface EmailLink {
  email: string;
  change: boolean;
}

const invalidToken = () =>
  new Problem(400, 'invalid_token', 'The link is invalid, expired or already used.', [
    { field: 'token', message: 'is invalid, expired or already used' },
  ]);

/** Proof that an address is the account holder's: at registration, on request, and before an email change. */
@Injectable()
export class EmailVerificationService {
  constructor(
    private readonly accounts: AccountsService,
    private readonly tokens: AccountTokensRepository,
    private readonly mail: AccountMail,
    private readonly tx: TransactionRunner,
    private readonly rateLimits: RateLimitStore,
    private readonly config: AppConfig,
    private readonly activity: ActivityLog,
    private readonly passwordCheck: PasswordCheck,
  ) {}

  /** Queues the verification mail in the caller's transaction (registration). */
  async sendVerification(m: EntityManager, account: AccountView): Promise<void> {
    const token = newSecretToken('hev_');
    await this.tokens.retire(m, account.id, 'verify_email');
    await this.tokens.create(m, account.id, 'verify_email', account.email, token.hash, VERIFY_TTL_SECONDS);
    await this.mail.verifyEmail(m, account.email, account.name, token.token);
  }

  async resend(principal: Principal): Promise<void> {
    const account = await this.existingAccount(principal.accountId);
    if (account.emailVerifiedAt) throw Problem.conflict('already_verified', 'The email address is already confirmed.');
    await this.spendMailBudget(account.id);
    await this.tx.run((m) => this.sendVerification(m, account));
  }

  /** What a verification link would confirm, while it still works; it stays unused (mail scanners open links). */
  async pendingConfirmation(token: string): Promise<EmailLink | null> {
    const live = await this.tokens.findLive(hashSecretToken(token), ['verify_email', 'change_email']);
    return live && { email: live.email, change: live.purpose === 'change_email' };
  }

  async verify(token: string, request?: RequestFacts): Promise<EmailLink> {
    return this.tx.run(async (m): Promise<EmailLink> => {
      const used = await this.tokens.consume(m, hashSecretToken(token), ['verify_email', 'change_email']);
      if (!used) throw invalidToken();
      const account = await this.accounts.findById(used.account_id, m);
      const recordAs = (action: ActivityAction) =>
        this.activity.record(m, {
          accountId: used.account_id,
          action,
          entity: { type: 'account', id: used.account_id },
          actor: account ? accountActor(account) : undefined,
          request,
        });
      if (used.purpose === 'verify_email') {
        await this.accounts.markEmailVerified(m, used.account_id, used.email);
        await recordAs('account.email_verify');
        return { email: used.email, change: false };
      }
      await this.accounts.changeEmail(m, used.account_id, used.email);
      // Reset links went to the old address, as did any other pending link: none survives the move.
      await this.tokens.retireAll(m, used.account_id);
      await recordAs('account.email_change');
      return { email: used.email, change: true };
    });
  }

  /**
   * A new name applies at once; a new email only after it is confirmed, and the old address is
   * told. An address another account has gets the same answer (issue 26, finding 7): its owner
   * is told by mail, with no link, and nothing changes.
   */
  async updateMe(principal: Principal, input: UpdateMeRequest): Promise<AccountResponse> {
    const account = await this.existingAccount(principal.accountId);
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
    await this.spendMailBudget(account.id);
  }

  private spendMailBudget(accountId: string): Promise<void> {
    return spendAccountBudget(this.rateLimits, `email:account:${accountId}`, this.config.rateLimit.emailPerHour, 3600);
  }

  private async existingAccount(accountId: string): Promise<AccountView> {
    const account = await this.accounts.findById(accountId);
    if (!account) throw Problem.unauthorized();
    return account;
  }
}
