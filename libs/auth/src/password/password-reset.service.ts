import { Injectable, OnModuleInit } from '@nestjs/common';
import { accountActor, ActivityLog, JobQueue, Problem, RequestFacts, TransactionRunner } from '@app/core';
import { AccountsService } from '@app/accounts';
import { AccountMail } from '../email/account-mail';
import { AccountTokensRepository } from '../email/account-tokens.repository';
import { AcceptedResponse } from '../email/dto/account-email.request';
import { hashSecretToken, newSecretToken } from '../mfa/secret-tokens';
import { SessionsService } from '../sessions/sessions.service';

const RESET_REQUESTED = 'auth.password-reset-requested';
const RESET_TTL_SECONDS = 3600;
const ACCEPTED: AcceptedResponse = { message: 'If an account has this email address, a reset link is on its way.' };

/**
 * Forgot/reset password. The request only queues a job with the address, whether or not an
 * account has it, so the answer and its timing are the same; the worker looks the account up.
 */
@Injectable()
export class PasswordResetService implements OnModuleInit {
  constructor(
    private readonly jobs: JobQueue,
    private readonly accounts: AccountsService,
    private readonly tokens: AccountTokensRepository,
    private readonly sessions: SessionsService,
    private readonly mail: AccountMail,
    private readonly tx: TransactionRunner,
    private readonly activity: ActivityLog,
  ) {}

  onModuleInit(): void {
    // The request's facts travel with the job, so the activity entry says where the request came from.
    this.jobs.work<{ email: string; request?: RequestFacts }>(RESET_REQUESTED, (job) => this.mailResetLink(job.email, job.request));
  }

  async requestReset(email: string, request?: RequestFacts): Promise<AcceptedResponse> {
    await this.jobs.send(RESET_REQUESTED, { email, request }, { retryLimit: 5, retryDelaySeconds: 10, retryBackoff: true });
    return ACCEPTED;
  }

  async reset(token: string, newPassword: string, request?: RequestFacts): Promise<void> {
    const done = await this.tx.run(async (m, publish) => {
      const used = await this.tokens.consume(m, hashSecretToken(token), ['reset_password']);
      if (!used) return false;
      const account = await this.accounts.findById(used.account_id, m);
      if (!account) return false;
      await this.accounts.setPassword(m, account.id, newPassword);
      await this.tokens.retire(m, account.id, 'reset_password');
      await this.sessions.endAllExcept(m, publish, account.id, null);
      await this.mail.notice(m, account.email, account.name, 'password_reset');
      await this.activity.record(m, {
        accountId: account.id,
        action: 'auth.password_reset',
        entity: { type: 'account', id: account.id },
        actor: accountActor(account),
        request,
      });
      return true;
    });
    if (!done)
      throw new Problem(400, 'invalid_token', 'The reset link is invalid, expired or already used.', [
        { field: 'token', message: 'is invalid, expired or already used' },
      ]);
  }

  private async mailResetLink(email: string, request: RequestFacts | undefined): Promise<void> {
    const account = await this.accounts.findByEmail(email);
    if (!account) return;
    const token = newSecretToken('hpr_');
    await this.tx.run(async (m) => {
      await this.tokens.create(m, account.id, 'reset_password', account.email, token.hash, RESET_TTL_SECONDS);
      await this.mail.passwordReset(m, account.email, account.name, token.token);
      await this.activity.record(m, {
        accountId: account.id,
        action: 'auth.password_reset_request',
        entity: { type: 'account', id: account.id },
        actor: accountActor(account),
        request,
      });
    });
  }
}
