import { Injectable } from '@nestjs/common';
import { accountActor, ActivityLog, Problem, RequestFacts, TransactionRunner } from '@app/core';
import { AccountsService } from '@app/accounts';
import { ApiKeysService } from '@app/api-keys';
import { AccountMail } from '../email/account-mail';
import { AccountTokensRepository } from '../email/account-tokens.repository';
import { hashSecretToken } from '../tokens/secret-tokens';
import { SessionsService } from '../sessions/sessions.service';

/** What a reset through the mailed link did besides setting the password. */
export interface ResetOutcome {
  email: string;
  revokedKeys: number;
}

/** A reset through the mailed link: the new password, and nothing of the old credential left. */
@Injectable()
export class PasswordResetCompletion {
  constructor(
    private readonly accounts: AccountsService,
    private readonly tokens: AccountTokensRepository,
    private readonly sessions: SessionsService,
    private readonly mail: AccountMail,
    private readonly tx: TransactionRunner,
    private readonly activity: ActivityLog,
    private readonly apiKeys: ApiKeysService,
  ) {}

  async reset(token: string, newPassword: string, request?: RequestFacts): Promise<ResetOutcome> {
    const done = await this.tx.run(async (m, publish): Promise<ResetOutcome | null> => {
      const used = await this.tokens.consume(m, hashSecretToken(token), ['reset_password']);
      if (!used) return null;
      const account = await this.accounts.findById(used.account_id, m);
      if (!account) return null;
      await this.accounts.setPassword(m, account.id, newPassword);
      // The link came to the address, which proves it as a verification link would.
      await this.accounts.markEmailVerified(m, account.id, used.email);
      // Every link mailed before (other resets, a pending email change, verification) belongs to the old credential.
      await this.tokens.retireAll(m, account.id);
      await this.sessions.endAllExcept(m, publish, account.id, null);
      // Recorded first: the webhooks area disables the account's endpoints on this entry, before
      // it (or the revocations below) could be delivered to one someone else added.
      const actor = accountActor(account);
      await this.activity.record(m, {
        accountId: account.id,
        action: 'auth.password_reset',
        entity: { type: 'account', id: account.id },
        actor,
        request,
      });
      // Whoever held the account before the owner proved the address keeps no key.
      const revokedKeys = await this.apiKeys.revokeAllIn(m, publish, account.id, { actor }, 'password_reset');
      await this.mail.passwordResetNotice(m, account.email, account.name, revokedKeys);
      return { email: account.email, revokedKeys };
    });
    if (!done)
      throw new Problem(400, 'invalid_token', 'The reset link is invalid, expired or already used.', [
        { field: 'token', message: 'is invalid, expired or already used' },
      ]);
    return done;
  }
}
