import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { AccountsService, AccountView } from '@app/accounts';
import { accountActor, ActivityAction, ActivityLog, Principal, Problem, RequestFacts, TransactionRunner } from '@app/core';
import { AccountRateLimits } from '../account-rate-limits';
import { hashSecretToken, newSecretToken } from '../tokens/secret-tokens';
import { AccountMail } from './account-mail';
import { AccountTokensRepository } from './account-tokens.repository';
import { callerAccount } from '../sessions/current-session';

export const VERIFY_TTL_SECONDS = 24 * 3600;

/** A verification link: the address it confirms, and whether it moves the account to that address. */
export interface EmailLink {
  email: string;
  change: boolean;
}

const invalidToken = () =>
  new Problem(400, 'invalid_token', 'The link is invalid, expired or already used.', [
    { field: 'token', message: 'is invalid, expired or already used' },
  ]);

/** Proof that an address is the account holder's: at registration, on request, and before an email change (EmailChange). */
@Injectable()
export class EmailVerificationService {
  constructor(
    private readonly accounts: AccountsService,
    private readonly tokens: AccountTokensRepository,
    private readonly mail: AccountMail,
    private readonly tx: TransactionRunner,
    private readonly rateLimits: AccountRateLimits,
    private readonly activity: ActivityLog,
  ) {}

  /** Queues the verification mail in the caller's transaction (registration). */
  async sendVerification(m: EntityManager, account: AccountView): Promise<void> {
    const token = newSecretToken('hev_');
    await this.tokens.retire(m, account.id, 'verify_email');
    await this.tokens.create(m, account.id, 'verify_email', account.email, token.hash, VERIFY_TTL_SECONDS);
    await this.mail.verifyEmail(m, account.email, account.name, token.token);
  }

  async resend(principal: Principal): Promise<void> {
    const account = await callerAccount(this.accounts, principal.loginId);
    if (account.emailVerifiedAt) throw Problem.conflict('already_verified', 'The email address is already confirmed.');
    await this.rateLimits.mail(account.id);
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
}
